/** Laravel's paginated resource shape (`links` and `meta`), which legacy clients parse. */

export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface PaginatedBody<T> {
  data: T[];
  links: { first: string | null; last: string | null; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    links: PageLink[];
    path: string | null;
    per_page: number;
    to: number | null;
    total: number;
  };
}

const ON_EACH_SIDE = 3;

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/** Laravel's UrlWindow: all pages when few, otherwise the ends and a slider with "..." between. */
function pageWindow(current: number, last: number): (number[] | '...')[] {
  if (last < ON_EACH_SIDE * 2 + 8) return [range(1, last)];
  const window = ON_EACH_SIDE + 4;
  const start = range(1, 2);
  const finish = range(last - 1, last);
  if (current <= window) return [range(1, window + ON_EACH_SIDE), '...', finish];
  if (current > last - window) return [start, '...', range(last - (window + (ON_EACH_SIDE - 1)), last)];
  return [start, '...', range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), '...', finish];
}

/**
 * @param path the collection URL without query (meta.path)
 * @param query the request's other parameters, kept on every page link
 */
export function paginate<T>(
  data: T[],
  {
    page,
    perPage,
    total,
    path,
    query,
  }: { page: number; perPage: number; total: number; path: string; query: URLSearchParams },
): PaginatedBody<T> {
  const last = Math.max(1, Math.ceil(total / perPage));
  const url = (n: number) => {
    const params = new URLSearchParams(query);
    params.delete('page');
    params.append('page', String(n));
    return `${path}?${params.toString()}`;
  };
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < last ? url(page + 1) : null;
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const links: PageLink[] = [{ url: prev, label: '&laquo; Previous', active: false }];
  for (const element of pageWindow(page, last)) {
    if (element === '...') links.push({ url: null, label: '...', active: false });
    else for (const n of element) links.push({ url: url(n), label: String(n), active: n === page });
  }
  links.push({ url: next, label: 'Next &raquo;', active: false });
  return {
    data,
    links: { first: url(1), last: url(last), prev, next },
    meta: {
      current_page: page,
      from,
      last_page: last,
      links,
      path,
      per_page: perPage,
      to: from === null ? null : from + data.length - 1,
      total,
    },
  };
}
