/** A task's output or input as the console previews it: the image, a player, or a link, with its facts. */
import type { Preview } from "./task-media";

function sizeOf(bytes: number | undefined): string {
  if (bytes === undefined) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function Player({ kind, src }: { kind: "video" | "audio"; src: string }) {
  const fallback = <a href={src}>Download the {kind}</a>;
  return kind === "video" ? (
    // biome-ignore lint/a11y/useMediaCaption: generated outputs and inputs come with no caption track
    <video controls preload="metadata" playsinline src={src}>
      {fallback}
    </video>
  ) : (
    // biome-ignore lint/a11y/useMediaCaption: generated outputs and inputs come with no caption track
    <audio controls preload="metadata" src={src}>
      {fallback}
    </audio>
  );
}

export function PreviewFigure({ p }: { p: Preview }) {
  const facts = [
    p.content_type,
    p.width && p.height ? `${p.width}×${p.height}` : "",
    p.duration_seconds !== undefined ? `${p.duration_seconds} s` : "",
    sizeOf(p.bytes),
  ].filter(Boolean);
  return (
    <figure class={`preview preview-${p.kind}`} data-label={p.label}>
      {p.url && p.kind === "image" && (
        <img src={p.url} alt={p.label} loading="lazy" {...(p.width && p.height ? { width: p.width, height: p.height } : {})} />
      )}
      {p.url && p.kind === "video" && <Player kind="video" src={p.url} />}
      {p.url && p.kind === "audio" && <Player kind="audio" src={p.url} />}
      <figcaption>
        <code>{p.label}</code> {facts.join(" · ")}
        {p.note && <span class="note"> {p.note}</span>}
        {p.expires_at && (
          <span class="note">
            {" "}
            kept until <time datetime={p.expires_at}>{p.expires_at}</time>
          </span>
        )}
        {p.url && (
          <>
            {" "}
            <a href={p.url} target="_blank" rel="noopener">
              open
            </a>
          </>
        )}
      </figcaption>
    </figure>
  );
}
