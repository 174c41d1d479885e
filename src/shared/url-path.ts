/** The path of a URL as a request line carries it: everything before the first `?` (the query is not part of it). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
