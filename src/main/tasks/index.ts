export {
  buildParserPrompt,
  defaultClarification,
  FILE_LIST_CAP,
  parseTask,
  templateTask,
  type ParseContext,
  type ParseTaskInput,
  type ParseTaskResult,
} from './taskParser'
export { renderTaskMarkdown, type TaskMarkdownMeta } from './taskMarkdown'
export { fillTemplate } from './taskParser'
