/*
 * The browser reporting script served at GET /js/{key}.js (reporting-script.ts minifies it once at start and calls
 * it with the store URL of the key's project). Include it as early as possible:
 *
 *   <script src="https://errors.example.com/js/<public key>.js" data-release="1.4.2" data-environment="production"></script>
 *
 * It reports uncaught errors and unhandled promise rejections (with the stack, the page URL and the user agent) to
 * the store endpoint as a `text/plain` POST, a "simple" cross-origin request that needs no preflight; at most 10
 * reports per page load. `window.svcErrors.capture(error)` reports a caught error and returns its event id (or
 * false past the limit). `data-release` and `data-environment` on its own script tag name the release and the
 * environment of every report.
 *
 * Written for a small minifier (minify-script.ts): every statement ends with a semicolon, no `+ +` or `- -`.
 */
(function (win, doc, url) {
  if (win.svcErrors) {
    return;
  }
  /* Reports sent by this page; at most 10. */
  var sent = 0;
  var tag = doc.currentScript;
  var attr = function (name) {
    return tag && tag.getAttribute('data-' + name) || undefined;
  };
  var release = attr('release');
  var env = attr('environment');

  /* A 32-hex event id. */
  var eventId = function () {
    return Array.prototype.map.call(crypto.getRandomValues(new Uint8Array(16)), function (b) {
      return (b + 256).toString(16).slice(1);
    }).join('');
  };

  /*
   * Stack lines, V8 ("    at fn (url:1:2)", "    at url:1:2") and Gecko/WebKit ("fn@url:1:2"), as frames
   * oldest first, the order the store endpoint expects.
   */
  var framesOf = function (stack) {
    var frames = [];
    String(stack || '').split('\n').forEach(function (line) {
      var m = /^\s*(?:at )?(?:(.*?) \(|(.*?)@)?(.*?):(\d+):(\d+)\)?$/.exec(line);
      if (m) {
        frames.unshift({ function: m[1] || m[2] || undefined, filename: m[3], lineno: +m[4], colno: +m[5] });
      }
    });
    return frames;
  };

  /* A rejection reason or thrown value that is not an Error, as text. */
  var text = function (value) {
    try {
      return typeof value == 'string' ? value : JSON.stringify(value);
    } catch (e) {
      return String(value);
    }
  };

  /* `how` is the mechanism: onerror, onunhandledrejection or capture (handled). */
  var send = function (error, how) {
    if (sent >= 10) {
      return false;
    }
    sent++;
    var isError = error && typeof error == 'object' && 'message' in error;
    var frames = framesOf(isError && error.stack);
    var id = eventId();
    var body = JSON.stringify({
      event_id: id,
      timestamp: Date.now() / 1000,
      platform: 'javascript',
      release: release,
      environment: env,
      exception: { values: [{
        type: isError && error.name || 'Error',
        value: isError ? String(error.message) : text(error),
        stacktrace: frames.length ? { frames: frames } : undefined,
        mechanism: { type: how, handled: how == 'capture' }
      }] },
      request: { url: location.href, headers: { 'User-Agent': navigator.userAgent } },
      sdk: { name: 'svc-errors', version: '1' }
    });
    /* keepalive lets a report leave with the page; browsers cap such bodies at 64 KB. */
    fetch(url, { method: 'POST', body: body, keepalive: body.length < 60000 }).catch(function () {});
    return id;
  };

  win.addEventListener('error', function (ev) {
    send(ev.error || { name: 'Error', message: ev.message, stack: ev.filename + ':' + ev.lineno + ':' + ev.colno }, 'onerror');
  });
  win.addEventListener('unhandledrejection', function (ev) {
    send(ev.reason, 'onunhandledrejection');
  });
  win.svcErrors = {
    capture: function (error) {
      return send(error, 'capture');
    }
  };
})
