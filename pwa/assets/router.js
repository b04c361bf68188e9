// router.js: the History API's navigation, at the app's level. Screens
// call navigate(); app.js listens for the "route" event and for popstate
// and draws the screen its routes name. It imports no screen, so any
// screen may import it.

/** @type {string} a note for the next screen drawn */
let notice = '';

/**
 * takeNotice returns the note navigate left for the screen now drawn, once.
 */
export function takeNotice() {
  const n = notice;
  notice = '';
  return n;
}

/**
 * navigate shows another route without reloading the page.
 * @param {string} path
 * @param {{replace?: boolean, notice?: string}} [opts] notice: a note the next screen shows
 */
export function navigate(path, opts = {}) {
  notice = opts.notice ?? '';
  if (opts.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event('route'));
}

/**
 * interceptLinks turns clicks on same-origin links into navigate() calls.
 * @param {Document} doc
 */
export function interceptLinks(doc) {
  doc.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = /** @type {Element} */ (e.target).closest('a[href]');
    if (!(a instanceof HTMLAnchorElement) || a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    e.preventDefault();
    if (url.pathname + url.search !== location.pathname + location.search) navigate(url.pathname + url.search);
  });
}
