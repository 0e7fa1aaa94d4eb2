/** The panel's entry: theme first (no flash), then the app. */
import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { App } from './app.tsx';
import { interceptLinks } from './router.ts';
import { applyTheme, savedTheme } from './theme.ts';

applyTheme(savedTheme());
const root = document.getElementById('app') as HTMLElement;
interceptLinks(root);
render(<App />, root);
