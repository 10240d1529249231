// Importing this module registers every built-in tool (each file calls registerTool at load).
import './get-current-datetime'

export { builtinTools } from '../registry'
