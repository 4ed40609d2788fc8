import './zodJitless';
import { createRoot } from 'react-dom/client';
import { getApi } from './api/client';
import { App } from './app/App';
import './app/styles.css';

const root = createRoot(document.getElementById('root')!);
getApi().then(
  (api) => root.render(<App api={api} />),
  (e: Error) => root.render(<main className="fatal" role="alert"><h1>gpu-desk cannot start</h1><p>{e.message}</p></main>),
);
