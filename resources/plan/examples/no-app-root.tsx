// Fails `has-app-root`: two roots, neither of them <App>. Not type-checked.
export default (
  <>
    <Screen name="home" />
    <Screen name="about" />
  </>
)
