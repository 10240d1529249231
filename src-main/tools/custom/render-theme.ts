/**
 * The app's colours as a custom tool's render hooks get them (`theme`): the renderer's own tokens
 * (src-renderer/src/styles.css, where each is `light-dark(light, dark)`; a test holds the two equal).
 */
import type { CustomToolTheme } from '../../../src-custom-tool/index'

const COLORS: Record<CustomToolTheme['name'], CustomToolTheme['colors']> = {
  light: {
    bg: '#ffffff',
    fg: '#1c1c22',
    muted: '#5f6070',
    border: '#d9d9e0',
    accent: '#4f46e5',
    danger: '#c62828',
  },
  dark: {
    bg: '#17181c',
    fg: '#e8e8ee',
    muted: '#a0a1b0',
    border: '#33343d',
    accent: '#818cf8',
    danger: '#ef9a9a',
  },
}

/** The theme by the name of what the app shows now. */
export function renderTheme(name: CustomToolTheme['name']): CustomToolTheme {
  return { name, colors: { ...COLORS[name] } }
}
