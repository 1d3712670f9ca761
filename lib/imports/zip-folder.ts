import fs from "node:fs";
import path from "node:path";
import { zipSync, type Zippable } from "fflate";

// A folder as a zip (the CLI uploads memory folders and AgentScope workspaces this way; the
// tests build theirs from fixture folders). Entry names are relative to the folder, with
// "/" separators, under `prefix` when given. A symbolic link goes in as a link (Unix mode
// S_IFLNK in the entry's attributes, its target as data), as `zip -y` stores it: the server
// reads through one that stays inside the folder and names one that does not.

export function zipFolder(dir: string, prefix = ""): Uint8Array {
  const files: Zippable = {};
  const walk = (abs: string, rel: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const a = path.join(abs, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(a, r);
      else if (e.isFile()) files[prefix ? `${prefix}/${r}` : r] = new Uint8Array(fs.readFileSync(a));
      else if (e.isSymbolicLink()) files[prefix ? `${prefix}/${r}` : r] = [new TextEncoder().encode(fs.readlinkSync(a)), { os: 3, attrs: (0o120777 << 16) >>> 0 }];
    }
  };
  walk(dir, "");
  return zipSync(files, { level: 6 });
}
