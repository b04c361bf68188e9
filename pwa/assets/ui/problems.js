// problems.js: puts the server's field errors and warnings next to the
// controls they are about.
//
// Every control that edits a value carries that value's JSON Pointer in a
// data-pointer attribute (on its .field wrapper, or on a grid cell). For a
// problem at "/players/0/board/grid/1/2/points" we look for an element with
// exactly that pointer; if none is on screen (the card editor is closed) we
// drop the last segment and try "/players/0/board/grid/1/2" (the cell),
// and so on up to the board and the player. The message is written into the
// nearest .field's message slot; what finds no element at all is returned,
// so the caller can list it in a banner.
//
// An error about a field being typed into waits until the field is left,
// in a field that asks for it (data-hold-errors: a number stepper): "1"
// on the way to "12" is not worth a red line.

import { h } from './dom.js';

/** @typedef {import('../sync/http.js').FieldError} FieldError */

/**
 * clearProblems removes every mark a previous markProblems made.
 * @param {ParentNode} root
 */
export function clearProblems(root) {
  deferred = deferred.filter((d) => !root.contains(d.el));
  root.querySelectorAll('.msg[data-generated]').forEach((m) => m.remove());
  root.querySelectorAll('.has-error, .has-warning').forEach((el) => el.classList.remove('has-error', 'has-warning'));
  root.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
}

/**
 * markProblems shows each problem at the element its pointer names.
 * @param {ParentNode} root
 * @param {FieldError[]} problems
 * @param {'error' | 'warning'} kind
 * @returns {FieldError[]} the problems that matched no element
 */
export function markProblems(root, problems, kind) {
  /** @type {FieldError[]} */
  const unplaced = [];
  for (const p of problems) {
    // A problem of the whole table (a limit of the box) names every
    // field it is about in pointers; each of them is marked.
    const targets = [...new Set((p.pointers ?? [p.pointer]).flatMap((q) => findTargets(root, q)))];
    if (targets.length === 0) {
      unplaced.push(p);
      continue;
    }
    for (const el of targets) mark(el, p, kind);
  }
  return unplaced;
}

/**
 * findTargets returns the elements for the longest prefix of pointer that
 * some data-pointer on screen equals.
 * @param {ParentNode} root
 * @param {string} pointer
 * @returns {HTMLElement[]}
 */
export function findTargets(root, pointer) {
  for (let p = pointer; p !== ''; p = parentPointer(p)) {
    const found = /** @type {HTMLElement[]} */ ([...root.querySelectorAll(`[data-pointer="${CSS.escape(p)}"]`)]);
    if (found.length) return found;
  }
  return [];
}

/**
 * parentPointer drops the last reference token: "/a/b/0" → "/a/b".
 * @param {string} p
 */
export function parentPointer(p) {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '' : p.slice(0, i);
}

/**
 * playerOf returns the player index a pointer is about, or -1.
 * @param {string} pointer
 */
export function playerOf(pointer) {
  const m = /^\/players\/(\d+)(\/|$)/.exec(pointer);
  return m ? Number(m[1]) : -1;
}

/**
 * concerns says whether a problem is about player i: at its pointer, or at
 * any field a problem of the whole table names.
 * @param {FieldError} p
 * @param {number} i
 */
export function concerns(p, i) {
  return playerOf(p.pointer) === i || (p.pointers ?? []).some((q) => playerOf(q) === i);
}

/** @param {string} s */
function capitalize(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** @type {{el: HTMLElement, p: FieldError}[]} errors held back until their field is left */
let deferred = [];
let watching = false;

/**
 * typing says whether the focus is in a text or number field inside el's
 * field, one that holds its errors back: the value may be half typed.
 * @param {HTMLElement} el
 */
function typing(el) {
  const f = document.activeElement;
  const fieldEl = el.classList.contains('field') ? el : el.closest('.field');
  return !!fieldEl && fieldEl.hasAttribute('data-hold-errors') && f instanceof HTMLElement && fieldEl.contains(f)
    && (f instanceof HTMLTextAreaElement || (f instanceof HTMLInputElement && !['radio', 'checkbox', 'button', 'submit'].includes(f.type)));
}

/**
 * holdBack keeps an error until the focus leaves its field.
 * @param {HTMLElement} el
 * @param {FieldError} p
 */
function holdBack(el, p) {
  deferred.push({ el, p });
  if (watching) return;
  watching = true;
  document.addEventListener('focusout', (e) => {
    const left = /** @type {Node} */ (e.target);
    const due = deferred.filter((d) => (d.el.closest('.field') ?? d.el).contains(left));
    if (!due.length) return;
    deferred = deferred.filter((d) => !due.includes(d));
    for (const d of due) if (d.el.isConnected) mark(d.el, d.p, 'error');
  });
}

/**
 * mark flags one element and writes the message into its field.
 * @param {HTMLElement} el
 * @param {FieldError} p
 * @param {'error' | 'warning'} kind
 */
function mark(el, p, kind) {
  if (kind === 'error' && typing(el)) {
    holdBack(el, p);
    return;
  }
  const cls = kind === 'error' ? 'has-error' : 'has-warning';
  el.classList.add(cls);
  const fieldEl = el.classList.contains('field') ? el : el.closest('.field');
  // A small target (a grid cell) names itself in the message, which goes
  // under the whole grid.
  const where = el !== fieldEl && el.dataset.where ? `${el.dataset.where}: ` : '';
  if (kind === 'error') {
    const control = el.matches('input, select, button') ? el : el.querySelector('input:not([type=radio]):not([type=checkbox]), select');
    control?.setAttribute('aria-invalid', 'true');
  }
  if (!fieldEl) return;
  fieldEl.classList.add(cls);
  const slot = fieldEl.querySelector(':scope > .msgs') || fieldEl;
  const textOf = where + (where ? p.detail : capitalize(p.detail));
  for (const m of slot.querySelectorAll(':scope > .msg')) if (m.textContent === textOf) return;
  slot.appendChild(h('p', { class: ['msg', kind === 'error' ? 'msg-error' : 'msg-warning'], dataset: { generated: '1' } }, textOf));
}
