// The Queue panel (issue 15): the side panel's Queue tab over the work queue's use-cases.
export { QueuePanel } from './QueuePanel'
