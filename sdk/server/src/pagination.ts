/**
 * Cursor pagination (spec/rest.md): each page carries `nextCursor`, passed back as `cursor`,
 * null on the last page. The walk is keyset-based on the server, so it neither skips nor repeats.
 */

/** Every item of every page, fetched one page at a time as the loop asks for more. */
export async function* paginate<P extends { nextCursor: string | null }, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  items: (page: P) => ReadonlyArray<T>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    yield* items(page)
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
}
