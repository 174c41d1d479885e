// The portal frame around a page: a header with the tenant's name and a footer; none in a web view (x-service-embed).
import { html, trusted, type HtmlPart } from './html.js';

// A backslash at the end of a line of a template continues that line: the text has no line break there.
const stylesheet = trusted(`
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f4f6f9;\
overflow-wrap:anywhere;word-break:break-word}
.site-header{background:#24415f;color:#fff;padding:10px 16px;display:flex;align-items:center;gap:10px}
.site-header img{width:32px;height:32px;border-radius:6px}
.site-header .tenant{font-weight:600}
.site-footer{color:#667085;font-size:13px;padding:16px;text-align:center}
main{max-width:760px;margin:0 auto;padding:16px;background:#fff;min-height:50vh}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 12px}
h2{font-size:1.2rem;margin:20px 0 8px}
img{max-width:100%;height:auto}
.cover{width:100%;border-radius:8px;display:block;margin:8px 0 16px}
.meta{color:#667085;font-size:14px;margin:0 0 12px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;background:#e8eef6;font-size:13px}
.state-done{background:#dcf5e3}.state-current{background:#fff1c2}.state-stopped{background:#fde2e1}\
.state-pending,.state-skipped{background:#eceff3}
.fields{margin:0}
.fields div{display:grid;grid-template-columns:minmax(0,40%) minmax(0,1fr);gap:8px;padding:6px 0;\
border-bottom:1px solid #eceff3}
.fields dt{color:#667085}.fields dd{margin:0}
.stages{list-style:none;padding:0;margin:0}
.stages li{padding:10px 0;border-bottom:1px solid #eceff3}
.people{display:flex;flex-wrap:wrap;gap:8px;margin-top:6px}
.person{display:inline-flex;align-items:center;gap:6px;min-width:0}
.person img{width:28px;height:28px;border-radius:50%}
.avatar{width:96px;height:96px;border-radius:50%}
.table-scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse}td,th{border:1px solid #dfe3e8;padding:4px 8px}
pre{overflow-x:auto;max-width:100%}
.body{margin-top:12px}
.error{text-align:center;padding:40px 16px}.error .code{font-size:3rem;color:#98a2b3;margin:0}
`);

export type PageFrame = {
  /** the tenant's name and logo address for the header; null when the tenant is not known (401 page) */
  tenant: { name: string; logoUrl: string } | null;
  lang: string;
  embed: boolean;
};

export function page(frame: PageFrame, title: string, body: HtmlPart): string {
  const header = frame.embed
    ? ''
    : html`<header class="site-header">${
        frame.tenant
          ? html`<img src="${frame.tenant.logoUrl}" alt=""><span class="tenant">${frame.tenant.name}</span>`
          : html`<span class="tenant">Portal</span>`
      }</header>`;
  const footer = frame.embed
    ? ''
    : html`<footer class="site-footer">${frame.tenant?.name ?? 'Portal'} · portal-mock</footer>`;
  return html`<!doctype html>
<html lang="${frame.lang}"><head><meta charset="utf-8">\
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${stylesheet}</style></head>
<body>${header}<main id="content">${body}</main>${footer}</body></html>
`.value;
}
