import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { createDefaultClient } from './api'
import { App } from './app/App'
import { startBrowserNotifications } from './app/notifications'
import { Providers, createQueryClient } from './app/Providers'
import { startTheme } from './app/theme'
import './ui/tokens.css'
import './ui/base.css'
import './ui/ui.css'
import './app/app.css'

// The one place the renderer's long-lived objects are made; everything below receives them from providers.
startTheme()
const client = createDefaultClient()
const queryClient = createQueryClient()
// The desktop app announces finished tasks from its main process; a browser does it here.
if (!window.ralph) startBrowserNotifications(client)

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers client={client} queryClient={queryClient}>
      <App />
    </Providers>
  </StrictMode>,
)
