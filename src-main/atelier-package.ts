/**
 * The `atelier` package's public entry: the custom tool module contract (its types, helpers and
 * FatalToolError) and the loader as a library — `discoverAndLoadCustomTools` and `loadCustomTools`.
 * A tool module running in Atelier's host gets the contract alone (custom-tool-contract.js), so
 * importing `atelier` there never loads the app.
 */
export * from '../src-custom-tool/index'
export type {
  CustomToolCallResult,
  CustomToolProblem,
  LoadedCustomTool,
  LoadedCustomTools,
} from './tools/custom/loader'
export { discoverAndLoadCustomTools, loadCustomTools } from './tools/custom/loader'
