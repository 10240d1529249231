import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        // The CLI shares the main bundle's services but never imports `electron`. A custom tool
        // host runs as a process of its own, a search worker as a thread of the main process;
        // `atelier` is the package's entry, and `custom-tool-contract` what tool modules import by that name.
        input: {
          index: resolve('src-main/index.ts'),
          cli: resolve('src-main/cli/main.ts'),
          'custom-tool-host': resolve('src-main/tools/custom/host.ts'),
          // glob and grep walk and match in worker threads of this entry (tools/search/worker-pool.ts).
          'search-worker': resolve('src-main/tools/search/search-worker.ts'),
          // web_fetch turns HTML into Markdown in a thread of this entry (tools/web/page-content.ts).
          'page-worker': resolve('src-main/tools/web/page-worker.ts'),
          // The package's entry: the module contract and the loader as a library (src-main/atelier-package.ts).
          atelier: resolve('src-main/atelier-package.ts'),
          // What a tool module in a host gets for `atelier`: the contract alone, without the app.
          'custom-tool-contract': resolve('src-custom-tool/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload can require only `electron`: everything else is bundled in.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src-preload/index.ts') },
        // Sandboxed preloads cannot be ES modules.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    build: {
      rollupOptions: { input: { index: resolve('src-renderer/index.html') } },
    },
    plugins: [react()],
  },
})
