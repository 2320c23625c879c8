import '@picocss/pico/css/pico.min.css';
import './style.css';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
