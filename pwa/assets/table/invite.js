// invite.js: how to join a table: its QR code, the code in large type,
// and the link to copy or share.

import { h } from '../ui/dom.js';
import { tablePath } from '../sync/tables.js';
import { openSheet } from '../ui/sheet.js';
import { t } from '../ui/i18n.js';

/**
 * joinPanel shows how to join: a big QR code of the join link, the code in
 * large type, and the link to copy or share.
 * @param {string} code
 * @param {string} joinUrl
 * @param {boolean} folded the panel starts folded (a player has joined); a tap opens it
 * @param {HTMLElement} sheetHost where the enlarged code opens
 */
export function joinPanel(code, joinUrl, folded, sheetHost) {
  const copied = h('span', { class: 'copied', role: 'status' });
  const urlId = `join-url-${code}`;
  const urlInput = /** @type {HTMLInputElement} */ (h('input', {
    id: urlId, type: 'text', readonly: true, value: joinUrl, class: 'join-url', dataset: { testid: 'join-url' },
    on: { focus: () => urlInput.select() },
  }));
  const canShare = typeof navigator.share === 'function';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(joinUrl);
    } catch {
      urlInput.select();
      document.execCommand?.('copy');
    }
    copied.textContent = t('ui.table.linkCopied');
    setTimeout(() => { copied.textContent = ''; }, 2500);
  };
  const share = async () => {
    try {
      await navigator.share({ title: t('ui.table.shareTitle'), text: t('ui.table.shareText', { code }), url: joinUrl });
    } catch {
      /* closed the share sheet */
    }
  };
  const enlarge = () => {
    const s = openSheet({
      host: sheetHost,
      title: t('ui.table.scanToJoin', { code }),
      body: h('div', { class: 'qr-big-body' },
        h('img', { class: 'qr qr-big', src: tablePath(code, '/qr.svg'), width: 600, height: 600, alt: t('ui.table.qrAlt', { url: joinUrl }) }),
        h('p', { class: 'join-code' }, code)),
      actions: [h('button', { type: 'button', class: 'btn btn-primary sheet-done', on: { click: () => s.close() } }, t('ui.common.done'))],
    });
  };
  return h('details', { class: 'panel join-panel', open: !folded, dataset: { testid: 'invite' } },
    h('summary', {}, h('span', {}, t('ui.table.invite')), h('span', { class: 'join-code-small' }, code)),
    h('div', { class: 'join-body' },
      h('button', { type: 'button', class: 'qr-btn', 'aria-label': t('ui.table.qrBigger'), on: { click: enlarge } },
        h('img', {
          class: 'qr', src: tablePath(code, '/qr.svg'), width: 220, height: 220, dataset: { testid: 'qr' },
          alt: t('ui.table.qrAlt', { url: joinUrl }),
        })),
      h('p', { class: 'hint' }, t('ui.table.scanHint')),
      plainJoinNote(joinUrl),
      h('p', { class: 'join-code', 'aria-label': t('ui.table.codeLabel', { code: code.split('').join(' ') }), dataset: { testid: 'join-code' } }, code),
      h('div', { class: 'join-link' },
        h('label', { class: 'sr-only', for: urlId }, t('ui.table.joinLink')),
        urlInput,
        canShare ? h('button', { type: 'button', class: 'btn', on: { click: share } }, t('ui.table.share')) : null,
        h('button', { type: 'button', class: 'btn', on: { click: copy } }, t('ui.table.copy'))),
      copied));
}

/**
 * plainJoinNote says what the phones that join by a plain http link to
 * another machine will lack: browsers give such an address no service
 * worker, no installing and no Web Share. The README's "HTTPS" section
 * says how to serve https; a link to it would not open offline, so the
 * note names it.
 * @param {string} joinUrl
 */
function plainJoinNote(joinUrl) {
  /** @type {URL} */ let url;
  try {
    url = new URL(joinUrl);
  } catch {
    return null;
  }
  const name = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\./.test(name);
  if (url.protocol !== 'http:' || loopback) return null;
  return h('p', { class: 'notice plain-join-note', dataset: { testid: 'plain-http-join' } }, t('ui.table.plainHttp'));
}
