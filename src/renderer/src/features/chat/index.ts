// The chat (issue 12): the conversation, task cards and the composer beside the side panel.
export { Chat } from './Chat'
