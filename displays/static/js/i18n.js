// Texts come only from the translation files /i18n/{es,eu,en}.json. Spanish is the default
// and the fallback; a page may show a second language under the first (bilingual material).

export const LANGUAGES = ['es', 'eu', 'en'];
const STORE_KEY = 'bingo.lang';

const loaded = {};
let primary = 'es';
let second = null;

async function load(code) {
  if (!loaded[code]) {
    const response = await fetch(`/i18n/${code}.json`, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`/i18n/${code}.json: HTTP ${response.status}`);
    loaded[code] = await response.json();
  }
  return loaded[code];
}

export function initialLanguage(storageKey = STORE_KEY) {
  const asked = new URLSearchParams(location.search).get('lang');
  if (LANGUAGES.includes(asked)) return asked;
  const stored = localStorage.getItem(storageKey);
  return LANGUAGES.includes(stored) ? stored : 'es';
}

export async function setLanguage(code, { secondLanguage = null, storageKey = STORE_KEY } = {}) {
  if (!LANGUAGES.includes(code)) code = 'es';
  await load('es');
  await load(code);
  if (secondLanguage && secondLanguage !== code && LANGUAGES.includes(secondLanguage)) {
    await load(secondLanguage);
    second = secondLanguage;
  } else {
    second = null;
  }
  primary = code;
  localStorage.setItem(storageKey, code);
  document.documentElement.lang = code;
  applyTranslations(document);
}

export function language() {
  return primary;
}

export function secondLanguage() {
  return second;
}

export async function ensureLanguage(code) {
  await load(code);
}

function lookup(code, key) {
  const texts = loaded[code] || {};
  if (key in texts) return texts[key];
  const fallback = loaded.es || {};
  return key in fallback ? fallback[key] : key;
}

function fill(text, vars, code = primary) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(value(vars[name], code)) : whole));
}

// A placeholder's value: a text as it is; a key ({key, vars}) translated in the same language
// as the text it goes in, so that a bilingual line is wholly in each language (a key no file
// has is said as its `text`, as the hub's terms come); a list of either, joined with commas.
function value(item, code) {
  if (Array.isArray(item)) return item.map((one) => value(one, code)).join(', ');
  if (item && typeof item === 'object' && 'key' in item) {
    if ('text' in item && !known(code, item.key)) return item.text;
    return t(item.key, item.vars || {}, code);
  }
  return item;
}

function known(code, key) {
  return key in (loaded[code] || {}) || key in (loaded.es || {});
}

// The text of a key in the page's language (or in `code`), with {name} filled from vars.
export function t(key, vars = {}, code = primary) {
  return fill(lookup(code, key), vars, code);
}

export function has(key) {
  return known(primary, key);
}

// The text of a key in the page's language, or `fallback` where no translation file has it.
export function tOr(key, vars, fallback) {
  return has(key) ? t(key, vars) : fallback;
}

// Set an element's text from a key; with a second language, the second text goes beneath.
export function setText(element, key, vars = {}) {
  element.dataset.i18n = key;
  element.dataset.i18nVars = JSON.stringify(vars);
  render(element);
}

function render(element) {
  const key = element.dataset.i18n;
  let vars = {};
  if (element.dataset.i18nVars) {
    try {
      vars = JSON.parse(element.dataset.i18nVars);
    } catch {
      vars = {};
    }
  }
  if (second && element.hasAttribute('data-bilingual')) {
    element.replaceChildren(
      Object.assign(document.createElement('span'), { className: 'lang-1', textContent: t(key, vars) }),
      Object.assign(document.createElement('span'), {
        className: 'lang-2',
        textContent: t(key, vars, second),
      }),
    );
  } else {
    element.textContent = t(key, vars);
  }
}

export function applyTranslations(root) {
  for (const element of root.querySelectorAll('[data-i18n]')) render(element);
  for (const element of root.querySelectorAll('[data-i18n-placeholder]')) {
    element.placeholder = t(element.dataset.i18nPlaceholder);
  }
  for (const element of root.querySelectorAll('[data-i18n-title]')) {
    element.title = t(element.dataset.i18nTitle);
  }
  for (const element of root.querySelectorAll('[data-i18n-label]')) {
    element.setAttribute('aria-label', t(element.dataset.i18nLabel));
  }
}

export function locale(code = primary) {
  return lookup(code, '_meta.locale');
}

// Money as the hub sends it (a decimal string), in the page's language. The pattern and the
// separators come from the translation file (browsers do not all carry every locale's data).
export function money(amount, currency = 'EUR') {
  if (amount === null || amount === undefined || amount === '') return '—';
  const [whole, fraction = ''] = String(amount).replace(/^-/, '').split('.');
  const group = lookup(primary, '_meta.group_separator');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const number = `${String(amount).startsWith('-') ? '-' : ''}${grouped}${lookup(primary, '_meta.decimal_separator')}${(fraction + '00').slice(0, 2)}`;
  const symbol = currency === 'EUR' ? '€' : currency;
  return fill(lookup(primary, '_meta.money'), { amount: number, symbol });
}

// A language picker: a <select> that switches the page's language.
export async function languagePicker(select, onChange) {
  await Promise.all(LANGUAGES.map(load));
  select.replaceChildren(
    ...LANGUAGES.map((code) => {
      const option = document.createElement('option');
      option.value = code;
      option.textContent = lookup(code, '_meta.name');
      return option;
    }),
  );
  select.value = primary;
  select.addEventListener('change', () => onChange(select.value));
}
