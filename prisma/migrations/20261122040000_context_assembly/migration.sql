-- Contents that auto_context moved out of a prompt, returned on demand by reference.
CREATE TABLE "offloaded_contents" (
    "ref" UUID NOT NULL,
    "content" TEXT NOT NULL,
    "tokens" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "offloaded_contents_pkey" PRIMARY KEY ("ref")
);

-- CreateIndex
CREATE INDEX "offloaded_contents_created_at_idx" ON "offloaded_contents"("created_at");
