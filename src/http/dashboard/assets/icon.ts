// The dashboard's icon, declared by the page (`<link rel="icon">`) so the browser asks for this
// file instead of /favicon.ico, which the gateway does not serve: a speech bubble on the header's
// navy, as SVG (a few hundred bytes, sharp at every size).
export const DASHBOARD_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#12263f"/>
<path d="M16 6c-5.5 0-10 3.9-10 8.7 0 2.7 1.4 5.1 3.7 6.7L8.6 26l5-2.5c.8.2 1.6.3 2.4.3 5.5 0 10-3.9 10-8.7S21.5 6 16 6z" fill="#fff"/>
<path d="M11.5 12h9l-9 6h9" fill="none" stroke="#0b5cad" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;
