import { type KeyboardEvent, useMemo } from 'react'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { ChatIcon } from './ChatIcon'

type PathsDisplay = Extract<ToolDisplay, { kind: 'paths' }>

interface TreeNode {
  name: string
  folder: boolean
  children: TreeNode[]
}

/**
 * The paths as a tree: each segment a node, a node with children (or marked a folder) a folder.
 * Folders come first, then files, each by name, as a file browser lists them.
 */
export function buildTree(entries: PathsDisplay['entries']): TreeNode[] {
  const root: TreeNode = { name: '', folder: true, children: [] }
  for (const entry of entries) {
    const absolute = entry.path.startsWith('/')
    const segments = entry.path.split('/').filter(Boolean)
    if (absolute && segments.length > 0) segments[0] = `/${segments[0]}`
    let node = root
    segments.forEach((segment, index) => {
      const last = index === segments.length - 1
      let child = node.children.find((c) => c.name === segment)
      if (!child) {
        child = { name: segment, folder: !last || entry.folder === true, children: [] }
        node.children.push(child)
      } else if (!last || entry.folder) {
        child.folder = true
      }
      node = child
    })
  }
  const sort = (nodes: TreeNode[]): TreeNode[] =>
    nodes
      .map((node) => {
        // A folder's only child folder joins it on one row (src/main/tools), as editors show it.
        let merged = { ...node, children: sort(node.children) }
        while (merged.folder && merged.children.length === 1 && merged.children[0]?.folder) {
          const only = merged.children[0] as TreeNode
          merged = { ...only, name: `${merged.name}/${only.name}` }
        }
        return merged
      })
      .sort((a, b) =>
        a.folder === b.folder ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.folder ? -1 : 1,
      )
  return sort(root.children)
}

function TreeItem({ node, first }: { node: TreeNode; first: boolean }) {
  const folder = node.folder || node.children.length > 0
  return (
    <div
      role="treeitem"
      // One tab stop for the whole tree, on the row last moved to (the first at the start).
      tabIndex={first ? 0 : -1}
      aria-expanded={node.children.length > 0 ? true : undefined}
      aria-label={node.name}
    >
      <span className={`path-tree-row${folder ? ' path-tree-row--folder' : ''}`}>
        <ChatIcon name={folder ? 'folder' : 'file'} size={13} />
        <span className="path-tree-name">{node.name}</span>
      </span>
      {node.children.length > 0 && (
        // biome-ignore lint/a11y/useSemanticElements: a tree's nested rows are its groups; a fieldset holds form controls
        <div role="group">
          {node.children.map((child) => (
            <TreeItem key={child.name} node={child} first={false} />
          ))}
        </div>
      )}
    </div>
  )
}

/**
 * Arrow keys move between rows, as in any tree; the rows themselves do nothing else. The row moved to
 * keeps the tree's one tab stop (a roving tabindex), so Tab and Shift+Tab leave the tree from any row.
 */
function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>('[role="treeitem"]')]
  const at = items.indexOf(document.activeElement as HTMLElement)
  const next =
    event.key === 'ArrowDown'
      ? Math.min(items.length - 1, at + 1)
      : event.key === 'ArrowUp'
        ? Math.max(0, at - 1)
        : event.key === 'Home'
          ? 0
          : event.key === 'End'
            ? items.length - 1
            : undefined
  if (next === undefined) return
  event.preventDefault()
  for (const item of items) item.tabIndex = -1
  const target = items[next]
  if (target) {
    target.tabIndex = 0
    target.focus()
  }
}

/** "40 files", "2 folders", "38 files and 2 folders": what was found, by kind. */
export function pathsSize(display: PathsDisplay): string {
  const folders = display.entries.filter((entry) => entry.folder).length
  const files = display.entries.length - folders
  if (files + folders === 0) return 'nothing found'
  const counted = (count: number, one: string, many: string) =>
    count > 0 ? [`${count.toLocaleString()} ${count === 1 ? one : many}`] : []
  return [...counted(files, 'file', 'files'), ...counted(folders, 'folder', 'folders')].join(' and ')
}

/** What glob found or list_directory listed, as a tree below the folder it was asked about. */
export function PathTreeView({ display, label }: { display: PathsDisplay; label: string }) {
  const tree = useMemo(() => buildTree(display.entries), [display.entries])
  if (tree.length === 0) return <p className="tool-result-empty">Nothing found in {display.root}.</p>
  return (
    <div className="path-tree">
      <p className="path-tree-root" title={display.root}>
        <ChatIcon name="folder" size={13} /> <code className="path-tree-root-path">{display.root}</code>
      </p>
      <div role="tree" aria-label={label} className="path-tree-list" onKeyDown={moveFocus}>
        {tree.map((node, index) => (
          <TreeItem key={node.name} node={node} first={index === 0} />
        ))}
      </div>
      {display.truncated && (
        <p className="tool-result-note">Not every path was sent to the model: the list was cut.</p>
      )}
    </div>
  )
}
