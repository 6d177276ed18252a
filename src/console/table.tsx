/** The header row the console's tables share: one heading a column, and an unlabelled actions column when a row has buttons. */

/** A column's heading; `num` right-aligns it over a column of numbers. */
export type Column = string | { label: string; num: true };

export function TableHead({ columns, actions = false }: { columns: readonly Column[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((col) =>
          typeof col === "string" ? (
            <th scope="col">{col}</th>
          ) : (
            <th scope="col" class="num">
              {col.label}
            </th>
          ),
        )}
        {actions ? (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}
