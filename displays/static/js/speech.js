// The spoken number (spec §4 E4, §5: announce, then show). Real audio prepared at install with
// espeak-ng (/audio/<lang>/<n>.wav); the browser's speech synthesis when a file is missing.
// One number at a time, in order; with two languages, Spanish first, then the other.

import { ensureLanguage, t } from './i18n.js';

export class Announcer {
  constructor({ languages = ['es'], onBlocked = () => {} } = {}) {
    this.languages = languages;
    this.onBlocked = onBlocked;
    this.queue = Promise.resolve();
    this.log = []; // {n, lang, how, at}: when each announcement started (for the tests, too)
  }

  setLanguages(languages) {
    this.languages = languages;
  }

  say(n) {
    const languages = [...this.languages];
    this.queue = this.queue.then(async () => {
      for (const lang of languages) await this.sayIn(lang, n);
    });
    return this.queue;
  }

  async sayIn(lang, n) {
    try {
      await this.playFile(lang, n);
    } catch (error) {
      if (error && error.name === 'NotAllowedError') {
        this.onBlocked();
        return;
      }
      await this.speak(lang, n);
    }
  }

  playFile(lang, n) {
    return new Promise((resolve, reject) => {
      const audio = new Audio(`/audio/${lang}/${n}.wav`);
      let started = false;
      audio.addEventListener('playing', () => {
        if (!started) this.log.push({ n, lang, how: 'audio', at: Date.now() });
        started = true;
      });
      audio.addEventListener('ended', () => resolve());
      audio.addEventListener('error', () => (started ? resolve() : reject(new Error('no audio'))));
      audio.play().catch((error) => (started ? resolve() : reject(error)));
      setTimeout(resolve, 8000); // never hold the queue on a stuck file
    });
  }

  async speak(lang, n) {
    if (!('speechSynthesis' in window)) return;
    await ensureLanguage(lang);
    await new Promise((resolve) => {
      const utterance = new SpeechSynthesisUtterance(t('speech.number', { n }, lang));
      utterance.lang = t('_meta.locale', {}, lang);
      utterance.onstart = () => this.log.push({ n, lang, how: 'speech', at: Date.now() });
      utterance.onend = resolve;
      utterance.onerror = resolve;
      speechSynthesis.speak(utterance);
      setTimeout(resolve, 8000);
    });
  }
}
