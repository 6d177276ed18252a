/**
 * A task id as tables show it: `task_` with the first and last six of its 64 hex digits, linking
 * to the task's page, the whole id in the link's title (hover) and `data-task-id` (copy, scripts).
 */
export function shortTaskId(id: string): string {
  const m = /^task_([0-9a-f]{6})[0-9a-f]+([0-9a-f]{6})$/.exec(id);
  return m ? `task_${m[1]}…${m[2]}` : id;
}

export function TaskLink({ id }: { id: string }) {
  return (
    <a class="mono" href={`/console/tasks/${id}`} title={id} data-task-id={id}>
      {shortTaskId(id)}
    </a>
  );
}
