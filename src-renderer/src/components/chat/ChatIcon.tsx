/** Line icons drawn inline, so they need no font and no network; always decorative (aria-hidden). */
const PATHS = {
  folder: ['M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2Z'],
  up: ['M12 19V5', 'M5 12l7-7 7 7'],
  home: ['M3 11l9-8 9 8', 'M5 10v10h14V10'],
  send: ['M5 12h14', 'M13 6l6 6-6 6'],
  stop: ['M7 7h10v10H7Z'],
  copy: ['M9 9h11v11H9Z', 'M5 15H4V4h11v1'],
  check: ['M5 12l5 5 9-10'],
  edit: ['M4 20h4L19 9l-4-4L4 16Z', 'M13.5 6.5l4 4'],
  fork: ['M6 3v18', 'M18 3v4a6 6 0 0 1-6 6H6'],
  tool: ['M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.6-.4-.4-2.6Z'],
  terminal: ['M4 5h16v14H4Z', 'M7 9l3 3-3 3', 'M12 15h5'],
  alert: ['M12 3l10 18H2Z', 'M12 10v4', 'M12 17.5v.5'],
  info: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18Z', 'M12 11v6', 'M12 7.5v.5'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  down: ['M12 5v14', 'M5 12l7 7 7-7'],
  'chevron-down': ['M6 9l6 6 6-6'],
  'chevron-up': ['M6 15l6-6 6 6'],
  retry: ['M4 4v6h6', 'M20 12a8 8 0 0 0-14.9-4L4 10', 'M20 20v-6h-6', 'M4 12a8 8 0 0 0 14.9 4L20 14'],
  layers: ['M12 3l9 5-9 5-9-5Z', 'M3 13l9 5 9-5'],
  compress: ['M4 4h16', 'M4 20h16', 'M12 7v4', 'M9 9l3 3 3-3', 'M12 17v-4', 'M9 15l3-3 3 3'],
  sparkle: [
    'M12 3v4',
    'M12 17v4',
    'M3 12h4',
    'M17 12h4',
    'M6 6l2.5 2.5',
    'M15.5 15.5L18 18',
    'M18 6l-2.5 2.5',
    'M8.5 15.5L6 18',
  ],
  shield: ['M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6Z'],
  key: ['M15 7a4 4 0 1 0-3.9 5L4 19v2h3l1-1v-2h2v-2h2l1.1-1.1A4 4 0 0 0 15 7Z'],
  paperclip: ['M20 11.5l-8.2 8.2a5 5 0 0 1-7-7L13.5 4a3.5 3.5 0 0 1 5 5l-8.6 8.6a2 2 0 0 1-2.8-2.8L15 7'],
  file: ['M6 3h8l4 4v14H6Z', 'M14 3v4h4'],
  globe: [
    'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18Z',
    'M3 12h18',
    'M12 3c2.4 2.5 3.6 5.5 3.6 9s-1.2 6.5-3.6 9c-2.4-2.5-3.6-5.5-3.6-9s1.2-6.5 3.6-9Z',
  ],
} as const

export type IconName = keyof typeof PATHS

export function ChatIcon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className="chat-icon"
    >
      {PATHS[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  )
}
