// The user's own git repository (issue 13, "Your git"): its state in the project header, "Commit to my git".
export { CommitToGitButton } from './CommitToGitButton'
export { UserGitState } from './UserGitState'
