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
 * Written for a small minifier (minify-script.ts): every statement ends with a semicolon, no `+ +` or `- -`. It
 * renames nothing, so locals are short and declared together: the script stays at least 100 bytes under 2 KB with a
 * 200-character public URL (pages insert it into every HTML page; reporting-script.test.ts).
 */
(function (win, doc, url) {
  if (win.svcErrors) {
    return;
  }
  /* sent: reports sent by this page, at most 10. */
  var sent = 0,
    tag = doc.currentScript,
    attr = function (n) {
      return tag && tag.getAttribute('data-' + n) || undefined;
    },
    rel = attr('release'),
    env = attr('environment'),

    /* A 32-hex event id. */
    newId = function () {
      return [].map.call(crypto.getRandomValues(new Uint8Array(16)), function (b) {
        return (b + 256).toString(16).slice(1);
      }).join('');
    },

    /*
     * Stack lines, V8 ("    at fn (url:1:2)", "    at url:1:2") and Gecko/WebKit ("fn@url:1:2"), as frames
     * oldest first, the order the store endpoint expects.
     */
    framesOf = function (s) {
      var out = [];
      String(s || '').split('\n').forEach(function (l) {
        var m = /^\s*(?:at )?(?:(.*?) \(|(.*?)@)?(.*?):(\d+):(\d+)\)?$/.exec(l);
        if (m) {
          out.unshift({ function: m[1] || m[2] || undefined, filename: m[3], lineno: +m[4], colno: +m[5] });
        }
      });
      return out;
    },

    /* A rejection reason or thrown value that is not an Error, as text. */
    text = function (v) {
      try {
        return typeof v == 'string' ? v : JSON.stringify(v);
      } catch (e) {
        return String(v);
      }
    },

    /* `how` is the mechanism: onerror, onunhandledrejection or capture (handled). */
    send = function (err, how) {
      if (sent >= 10) {
        return false;
      }
      sent++;
      var isErr = err && typeof err == 'object' && 'message' in err,
        fr = framesOf(isErr && err.stack),
        id = newId(),
        body = JSON.stringify({
          event_id: id,
          timestamp: Date.now() / 1000,
          platform: 'javascript',
          release: rel,
          environment: env,
          exception: { values: [{
            type: isErr && err.name || 'Error',
            value: isErr ? String(err.message) : text(err),
            stacktrace: fr.length ? { frames: fr } : undefined,
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
    capture: function (err) {
      return send(err, 'capture');
    }
  };
})
