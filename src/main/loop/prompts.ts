import { loadPrompt } from '../workspace'

export const loadTemplate = (name: string): string => loadPrompt(name)

/** Fills `{{name}}` placeholders; an unknown placeholder is a bug in the template, so it throws. */
export function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    const value = values[key]
    if (value === undefined) throw new Error(`Prompt placeholder {{${key}}} has no value.`)
    return String(value)
  })
}

export const renderTemplate = (name: string, values: Record<string, string | number>) =>
  render(loadTemplate(name), values)

/** About four characters per token: good enough to keep prompts bounded and to report their size. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)
