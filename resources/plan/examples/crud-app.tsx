// A multi-screen CRUD app, written without the import (the shipped typings declare the components globally too).
export default (
  <App name="Shelf" description="Track the books you own, lend and want">
    <Theme mood="calm" seed={212} pattern="analogous" font="Inter" monoFont="JetBrains Mono" radius="md"
      philosophy="quiet, dense, keyboard-first">
      <Typography hero="3xl semibold" titles="lg medium" labels="xs uppercase" body="sm" code="xs mono" />
      <Animation hover="120ms ease" pages="200ms ease-out" micro="80ms" />
      <Rule prefer="tables over cards for lists longer than 10" />
      <Rule no="modal dialogs for editing" />
    </Theme>

    <Screen name="books" layout="sidebar">
      <Nav gumdrop="sidebar-nav">
        <NavItem label="Books" icon="book" to="/books" />
        <NavItem label="Loans" icon="handshake" to="/loans" />
        <NavItem label="Settings" icon="gear" to="/settings" />
      </Nav>
      <Content>
        <Section gumdrop="search-results" files={['src/pages/Books.tsx', 'src/components/BookTable.tsx']}>
          <Column field="title" sortable filterable />
          <Column field="author" sortable />
          <Column field="status" format="badge" width="8rem" />
          <Action trigger="New book" gumdrop="form-layout" intent="primary" hotkey="n" />
        </Section>
        <Section gumdrop="form-layout" variant="inline" files={['src/components/BookForm.tsx']}>
          <Field name="title" type="text" required placeholder="Title" />
          <Field name="author" type="text" required />
          <Field name="status" type="select" options={['owned', 'lent', 'wanted']} />
          <Field name="rating" type="number" range={[1, 5]} />
          <Action trigger="Save" intent="primary" hotkey="mod+s" />
        </Section>
      </Content>
      <Aside>
        <Section gumdrop="stats" files={['src/components/BookStats.tsx']}>
          <Slot name="counts" description="owned / lent / wanted" />
        </Section>
      </Aside>
    </Screen>

    <Screen name="loans" layout="sidebar">
      <Content>
        <Section gumdrop="data-table" files={['src/pages/Loans.tsx']}>
          <Column field="book" sortable />
          <Column field="borrower" sortable filterable />
          <Column field="due" format="date" />
          <Action trigger="Mark returned" intent="secondary" />
        </Section>
        <Custom intent="overdue banner">
          Show a dismissible banner when any loan is more than 14 days overdue.
        </Custom>
      </Content>
    </Screen>

    <Screen name="settings">
      <Content>
        <Section gumdrop="settings" files={['src/pages/Settings.tsx']}>
          <Field name="defaultLoanDays" type="number" range={[1, 90]} />
          <Field name="theme" type="select" options={['system', 'light', 'dark']} />
        </Section>
      </Content>
    </Screen>

    <Data>
      <Schema name="Book" fields={{ id: 'uuid', title: 'string', author: 'string', status: 'owned | lent | wanted', rating: 'number?' }} />
      <Schema name="Loan" fields={{ id: 'uuid', bookId: 'uuid', borrower: 'string', due: 'date' }} />
      <Endpoint resource="books" pattern="crud" auth="none" />
      <Endpoint resource="loans" pattern="crud" />
    </Data>
  </App>
)
