import { describe, expect, it } from "vitest";
import { auditFileName, receiptFileName } from "@/client/ui/download";

// An erasure receipt downloads under one name, from the erase dialog or the audit log (issue 40).
describe("download file names", () => {
  it("a receipt has the same name from the dialog and from its audit entry", () => {
    const receipt = { receipt_id: "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01", subject: "ana" };
    const entry = { id: "a1", action: "user.erased", details: receipt };
    expect(auditFileName(entry)).toBe(receiptFileName(receipt.receipt_id));
    expect(receiptFileName(receipt.receipt_id)).toBe("memscope-erasure-receipt-3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01.json");
  });
  it("other audit entries are named by their action and id", () => {
    expect(auditFileName({ id: "a2", action: "project.export", details: { rows: 3 } })).toBe("memscope-project-export-a2.json");
    expect(auditFileName({ id: "a3", action: "user.exported", details: null })).toBe("memscope-user-exported-a3.json");
  });
});
