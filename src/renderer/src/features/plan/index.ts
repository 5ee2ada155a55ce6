// The plan editor (issue 14): the side panel's Plan tab, and the task card's way into its diff review.
export { PlanPanel } from './PlanPanel'
export { usePlanUi } from './planUi'
export { markerTone } from './markerStyles'
