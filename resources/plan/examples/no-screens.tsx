// Fails `has-screens`: an App with a theme and data but nothing to show. Not type-checked.
export default (
  <App name="Headless">
    <Theme mood="calm" />
    <Data>
      <Schema name="Note" fields={{ id: 'uuid', body: 'string' }} />
    </Data>
  </App>
)
