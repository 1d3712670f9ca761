export async function seedIfEmpty(_p: unknown) {}
