/** Light and dark themes: the system's choice by default (prefers-color-scheme), or the one the user picked. */
export type Theme = 'system' | 'light' | 'dark';
const KEY = 'svc.theme';

export function savedTheme(): Theme {
  const t = localStorage.getItem(KEY);
  return t === 'light' || t === 'dark' ? t : 'system';
}

export function applyTheme(t: Theme): void {
  if (t === 'system') {
    localStorage.removeItem(KEY);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(KEY, t);
    document.documentElement.dataset.theme = t;
  }
}
