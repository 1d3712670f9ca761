import { Fragment } from "react";

/**
 * Text whose `backticked` spans are code, as the OpenAPI document writes them (its descriptions
 * are Markdown): shown as <code>, not as literal backticks.
 */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split("`");
  // An odd count of backticks leaves the last one unmatched: keep it as plain text.
  if (parts.length % 2 === 0) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <code key={i} className="font-mono">
            {p}
          </code>
        ) : (
          <Fragment key={i}>{p}</Fragment>
        ),
      )}
    </>
  );
}
