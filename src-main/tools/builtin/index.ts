// Importing this module registers every built-in tool (each file calls registerTool at load).
import './edit-file'
import './generate-image'
import './get-current-datetime'
import './glob'
import './grep'
import './list-directory'
import './read-file'
import './shell'
import './web-fetch'
import './write-file'

export { builtinTools } from '../registry'
