// WireMock's own Java client (inside the standalone jar) against portal-mock: one WireMock per sandbox, given the
// sandbox's base URL as its path prefix, with the same scenario names in each. Prints what it saw, one fact per
// line ("name value"), for test/control/wiremock-clients.test.ts to check; an exception is a failure (exit 1).
import static com.github.tomakehurst.wiremock.client.WireMock.*;

import com.github.tomakehurst.wiremock.client.WireMock;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class ClientCheck {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    HttpClient http = HttpClient.newHttpClient();
    for (int i = 2; i < args.length; i++) {
      String sandbox = args[i];
      WireMock wm = new WireMock("http", host, port, "/sandbox/" + sandbox + "/wiremock");
      wm.resetToDefaultMappings();
      wm.register(
          get(urlPathEqualTo("/orders"))
              .inScenario("checkout")
              .whenScenarioStateIs(Scenario.STARTED)
              .willSetStateTo("paid")
              .willReturn(okJson("{\"sandbox\":\"" + sandbox + "\",\"state\":\"open\"}")));
      wm.register(
          get(urlPathEqualTo("/orders"))
              .inScenario("checkout")
              .whenScenarioStateIs("paid")
              .willReturn(okJson("{\"sandbox\":\"" + sandbox + "\",\"state\":\"paid\"}")));
      System.out.println(sandbox + ".mappings " + wm.allStubMappings().getMappings().size());
    }
    // the first sandbox is called twice (its scenario moves on), the others once (theirs stay where they were)
    for (int i = 2; i < args.length; i++) {
      String sandbox = args[i];
      int calls = i == 2 ? 2 : 1;
      for (int c = 1; c <= calls; c++) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + "/sandbox/" + sandbox + "/wiremock/orders?x=1")).build(),
                HttpResponse.BodyHandlers.ofString());
        System.out.println(sandbox + ".call" + c + " " + r.statusCode() + " " + r.body());
      }
    }
    for (int i = 2; i < args.length; i++) {
      String sandbox = args[i];
      WireMock wm = new WireMock("http", host, port, "/sandbox/" + sandbox + "/wiremock");
      wm.verifyThat(i == 2 ? 2 : 1, getRequestedFor(urlPathEqualTo("/orders")));
      System.out.println(sandbox + ".verified " + wm.find(getRequestedFor(urlPathEqualTo("/orders"))).size());
      // the client reads scenarios through its static default instance: pointed at this sandbox, as a test does
      // with WireMock.configureFor("http", host, port, "/sandbox/NAME/wiremock")
      WireMock.configureFor(wm);
      System.out.println(sandbox + ".state " + wm.getAllScenarios().get(0).getState());
      wm.resetScenarios();
      System.out.println(sandbox + ".reset " + wm.getAllScenarios().get(0).getState());
    }
  }
}
