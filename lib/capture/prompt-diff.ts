import type { HistoryRow, PromptDiff, PromptLine } from "./schemas";

// "Sent vs modelled": the prompt an agent really sent beside the one Memscope computes for
// its profile. Both are reduced to (role, text) lines in sections; the histories are
// aligned by their longest common subsequence, so a message kept by one side only shows
// where it sits. Pure.

const key = (l: Pick<PromptLine, "role" | "content">) => `${l.role}\u0000${l.content.trim()}`;

export function alignHistories(sent: PromptLine[], modelled: PromptLine[], sentOffset = 0, modelledOffset = 0): HistoryRow[] {
  const n = sent.length;
  const m = modelled.length;
  // lcs[i][j]: the common length of sent[i..] and modelled[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = key(sent[i]) === key(modelled[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const rows: HistoryRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && key(sent[i]) === key(modelled[j])) {
      rows.push({ status: "both", role: sent[i].role, content: sent[i].content, sent_index: sentOffset + i, modelled_index: modelledOffset + j });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      rows.push({ status: "modelled_only", role: modelled[j].role, content: modelled[j].content, sent_index: null, modelled_index: modelledOffset + j });
      j++;
    } else {
      rows.push({ status: "sent_only", role: sent[i].role, content: sent[i].content, sent_index: sentOffset + i, modelled_index: null });
      i++;
    }
  }
  return rows;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function promptDiff(sent: PromptLine[], modelled: PromptLine[]): PromptDiff {
  const part = (lines: PromptLine[], ...sections: PromptLine["section"][]) => lines.filter((l) => sections.includes(l.section));
  const firstHistory = (lines: PromptLine[]) => Math.max(0, lines.findIndex((l) => l.section === "history"));
  const sentHistory = part(sent, "history");
  const modelledHistory = part(modelled, "history");
  const rows = alignHistories(sentHistory, modelledHistory, firstHistory(sent), firstHistory(modelled));
  const count = (s: HistoryRow["status"]) => rows.filter((r) => r.status === s).length;
  const joined = (lines: PromptLine[]) => lines.map((l) => l.content.trim()).join("\n\n");
  const systemMatches = joined(part(sent, "system", "memories")) === joined(part(modelled, "system", "memories"));
  const queryMatches = joined(part(sent, "query")) === joined(part(modelled, "query"));
  const history = { sent: sentHistory.length, modelled: modelledHistory.length, both: count("both"), sent_only: count("sent_only"), modelled_only: count("modelled_only") };

  let summary: string;
  if (history.sent !== history.modelled) {
    summary = `Your agent keeps ${plural(history.sent, "message")}, your profile says ${history.modelled}.`;
  } else if (history.sent_only || history.modelled_only) {
    summary = `Your agent and your profile both keep ${plural(history.sent, "message")}, but ${history.sent_only} of them differ.`;
  } else {
    summary = `Your agent keeps the same ${plural(history.sent, "message")} your profile says.`;
  }
  const also = [!systemMatches && "the system text differs", !queryMatches && "the new input differs"].filter(Boolean);
  if (also.length) summary += ` Also: ${also.join("; ")}.`;
  return { summary, history, system_matches: systemMatches, query_matches: queryMatches, rows };
}
