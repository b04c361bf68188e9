// sheet.js: a modal bottom sheet built on <dialog>, for editors that do
// not fit inline (an Insectarium card, an Insecta tile). The dialog is
// attached inside the screen so its fields take part in error marking.

import { h } from './dom.js';

/**
 * openSheet shows a modal sheet until it is closed.
 * @param {{host: HTMLElement, title: string, body: HTMLElement, actions?: HTMLElement[],
 *          onClose?: () => void}} o
 * @returns {{dialog: HTMLDialogElement, close: () => void}}
 */
export function openSheet(o) {
  const opener = /** @type {HTMLElement | null} */ (document.activeElement);
  const titleId = `sheet-title-${Date.now()}`;
  const dialog = /** @type {HTMLDialogElement} */ (h('dialog', { class: 'sheet', 'aria-labelledby': titleId },
    h('div', { class: 'sheet-head' },
      h('h2', { id: titleId }, o.title),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close', on: { click: () => dialog.close() } }, '✕')),
    h('div', { class: 'sheet-body' }, o.body),
    h('div', { class: 'sheet-actions' }, o.actions || [])));
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener && opener.isConnected) opener.focus();
    o.onClose?.();
  });
  // A tap on the backdrop (outside the sheet's box) closes it.
  dialog.addEventListener('click', (e) => {
    if (e.target !== dialog) return;
    const r = dialog.getBoundingClientRect();
    if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) dialog.close();
  });
  o.host.appendChild(dialog);
  dialog.showModal();
  return { dialog, close: () => dialog.close() };
}
