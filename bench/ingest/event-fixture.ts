/**
 * A realistic browser error event of about 5 KB (what @sentry/browser sends for an uncaught TypeError: a dozen
 * frames, breadcrumbs, request, contexts, tags, user), in variants that group into different issues, and the
 * envelope bodies of the benchmark: gzip, each with its own event id.
 *
 * Compressing 5 KB per request would cost the load generator more CPU than the server spends, so each body is
 * two gzip members (RFC 1952 allows several; every gunzip reads them as one stream): a tiny "stored" member with
 * the envelope and item headers (carrying the fresh event id), built by hand, and the event payload compressed
 * once per variant.
 */
import zlib from 'node:zlib';

const FUNCTIONS = ['renderCart', 'applyCoupon', 'loadProfile', 'submitOrder', 'fetchPrices', 'updateBasket', 'trackClick', 'openModal', 'saveAddress', 'searchProducts'];
const TYPES = ['TypeError', 'ReferenceError', 'RangeError', 'Error', 'SyntaxError'];

export function makeEvent(variant: number, user: number): Record<string, unknown> {
  const fn = FUNCTIONS[variant % FUNCTIONS.length];
  const type = TYPES[Math.floor(variant / FUNCTIONS.length) % TYPES.length];
  const frames = Array.from({ length: 10 }, (_, i) => ({
    filename: i < 4 ? 'https://shop.example.com/static/js/vendor.8c1d2e3f.js' : `https://shop.example.com/static/js/${i % 2 ? 'main' : 'cart'}.3f2a1b9c.js`,
    function: i === 9 ? fn : i < 4 ? `vendorFn${i}` : `step${i}`,
    lineno: 1000 + i * 37, colno: 10 + i, in_app: i >= 4,
    context_line: `    const total = items.reduce((sum, item) => sum + item.price * item.quantity, ${i});`,
    pre_context: ['    if (!items) return 0;'],
    post_context: ['    return total;'],
  }));
  const breadcrumbs = Array.from({ length: 10 }, (_, i) => ({
    timestamp: 1767225600 + i, category: ['ui.click', 'fetch', 'navigation', 'console'][i % 4], level: 'info',
    message: i % 4 === 3 ? `render took ${12 + i} ms` : undefined,
    data: i % 4 === 1 ? { method: 'GET', url: `/api/cart/${1000 + i}`, status_code: 200 } : i % 4 === 2 ? { from: '/products', to: '/cart' } : { target: `button#checkout-${i}` },
  }));
  return {
    timestamp: Date.now() / 1000, platform: 'javascript', level: 'error', release: 'shop-web@4.12.0', environment: 'production',
    sdk: { name: 'sentry.javascript.browser', version: '8.40.0', integrations: ['InboundFilters', 'FunctionToString', 'BrowserApiErrors', 'Breadcrumbs', 'GlobalHandlers', 'LinkedErrors', 'Dedupe', 'HttpContext'] },
    exception: { values: [{ type, value: `Cannot read properties of undefined (reading 'price') in ${fn} #${variant}`, mechanism: { type: 'onerror', handled: false }, stacktrace: { frames } }] },
    breadcrumbs: { values: breadcrumbs },
    request: {
      url: 'https://shop.example.com/cart?step=2&coupon=SPRING',
      headers: { 'User-Agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', Referer: 'https://shop.example.com/products/42' },
    },
    contexts: {
      browser: { name: 'Chrome', version: '131.0.0' }, os: { name: 'macOS', version: '10.15.7' },
      device: { family: 'Mac', model: 'Mac', brand: 'Apple' },
      trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
    },
    tags: { 'page.route': '/cart', 'ab.checkout': 'variant-b', locale: 'de-DE' },
    user: { id: `user-${user}`, ip_address: '{{auto}}' },
    extra: { cartSize: 3 + (user % 5), featureFlags: ['new-checkout', 'fast-search'] },
  };
}

/** A gzip member holding `data` uncompressed (deflate "stored" block): cheap to build per request. */
export function storedGzipMember(data: Buffer): Buffer {
  if (data.length > 0xffff) throw new Error('stored member too large');
  const out = Buffer.alloc(10 + 5 + data.length + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff], 0);
  out[10] = 0x01; // BFINAL, stored
  out.writeUInt16LE(data.length, 11);
  out.writeUInt16LE(~data.length & 0xffff, 13);
  data.copy(out, 15);
  out.writeUInt32LE(zlib.crc32(data) >>> 0, 15 + data.length);
  out.writeUInt32LE(data.length, 19 + data.length);
  return out;
}

export interface EnvelopeFactory {
  /** A gzip envelope body with a fresh event id. */
  body(i: number): Buffer;
  /** Mean decompressed size of an event payload, in bytes. */
  eventBytes: number;
  /** Mean compressed body size, in bytes. */
  bodyBytes: number;
}

export function envelopeFactory(variants = 50, users = 20): EnvelopeFactory {
  const payloads: Array<{ length: number; gz: Buffer }> = [];
  for (let v = 0; v < variants; v++) {
    for (let u = 0; u < users; u++) {
      const json = Buffer.from(JSON.stringify(makeEvent(v, u)));
      payloads.push({ length: json.length, gz: zlib.gzipSync(Buffer.concat([json, Buffer.from('\n')])) });
    }
  }
  const sentAt = new Date().toISOString();
  let n = 0;
  const body = (i: number) => {
    const p = payloads[(i * 7919) % payloads.length];
    const id = (Date.now().toString(16) + (n++).toString(16).padStart(10, '0') + Math.random().toString(16).slice(2)).padEnd(32, '0').slice(0, 32);
    const head = Buffer.from(`{"event_id":"${id}","sent_at":"${sentAt}","sdk":{"name":"sentry.javascript.browser","version":"8.40.0"}}\n{"type":"event","length":${p.length}}\n`);
    return Buffer.concat([storedGzipMember(head), p.gz]);
  };
  const eventBytes = payloads.reduce((s, p) => s + p.length, 0) / payloads.length;
  const bodyBytes = payloads.reduce((s, p) => s + p.gz.length, 0) / payloads.length + 200;
  return { body, eventBytes, bodyBytes };
}
