// The hub's front page: where each screen is.
import { fetchStart } from './hub.js';
import { initialLanguage, languagePicker, setLanguage } from './i18n.js';

async function main() {
  await setLanguage(initialLanguage());
  await languagePicker(document.querySelector('#i-lang'), (code) => setLanguage(code));
  try {
    const start = await fetchStart();
    document.querySelector('#i-hall').textContent = start.name || start.hall;
  } catch {
    document.querySelector('#i-hall').textContent = '';
  }
}

main();
