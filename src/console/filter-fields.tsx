/** The fields of the console's GET filter forms (a filtered listing is a link): a labelled choice and a labelled date. */

export function SelectField(props: {
  label: string;
  name: string;
  options: readonly (string | number)[];
  /** The option chosen now ("" for none). */
  selected: string;
  /** An "any" choice first, for a filter that may be left off. */
  any?: boolean;
}) {
  return (
    <label>
      {props.label}
      <select name={props.name}>
        {props.any ? <option value="">any</option> : null}
        {props.options.map((o) => (
          <option value={String(o)} selected={props.selected === String(o)}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function DateField(props: { label: string; name: string; value: string; required?: boolean }) {
  return (
    <label>
      {props.label}
      <input type="date" name={props.name} value={props.value} required={props.required} />
    </label>
  );
}

export function TextField(props: { label: string; name: string; value: string; placeholder?: string }) {
  return (
    <label>
      {props.label}
      <input type="text" name={props.name} value={props.value} placeholder={props.placeholder} autocomplete="off" />
    </label>
  );
}

/** A moment to the minute, read as UTC (the label says so). */
export function DateTimeField(props: { label: string; name: string; value: string }) {
  return (
    <label>
      {props.label}
      <input type="datetime-local" name={props.name} value={props.value} />
    </label>
  );
}
