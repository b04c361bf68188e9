// sheet.js: a modal bottom sheet built on <dialog>, for editors that do
// not fit inline (an Insectarium card, an Insecta tile). The dialog is
// attached inside the screen so its fields take part in error marking.
// An editor that walks from one cell to the next renames the sheet as it
// goes (setTitle), and the new title is read out.

import { h, uid } from './dom.js';
import { t } from './i18n.js';

/**
 * @typedef {Object} Sheet
 * @property {HTMLDialogElement} dialog
 * @property {() => void} close
 * @property {(title: string, focus?: boolean) => void} setTitle renames the sheet;
 *   focus moves to the title, so a screen reader says where the editor went
 */

/**
 * openSheet shows a modal sheet until it is closed.
 * @param {{host: HTMLElement, title: string, body: HTMLElement, actions?: HTMLElement[],
 *          onClose?: () => void, class?: string}} o
 * @returns {Sheet}
 */
export function openSheet(o) {
  const opener = /** @type {HTMLElement | null} */ (document.activeElement);
  const titleId = uid('sheet-title');
  const heading = h('h2', { id: titleId, tabindex: -1 }, o.title);
  const dialog = /** @type {HTMLDialogElement} */ (h('dialog', { class: ['sheet', o.class], 'aria-labelledby': titleId },
    h('div', { class: 'sheet-head' },
      heading,
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': t('ui.common.close'), on: { click: () => dialog.close() } }, h('span', { 'aria-hidden': 'true' }, '✕'))),
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
  return {
    dialog,
    close: () => dialog.close(),
    setTitle: (title, focus = false) => {
      heading.textContent = title;
      if (focus) heading.focus({ preventScroll: true });
    },
  };
}
