// A small, safe Markdown subset for answers: paragraphs, line breaks, bullet and numbered
// lists, headings, code fences, `code`, **bold**, *italic*, [links](https://…) and bare URLs.
// It builds DOM nodes (never HTML strings); links only ever get http(s) addresses.
import { h } from './dom.js';

/** Renders `text` as Markdown into a DocumentFragment. */
export function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)\s*([\w+-]*)\s*$/);
    if (fence) {
      const body = [];
      i += 1;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i += 1; // the closing fence (or the end)
      out.append(h('pre', {}, h('code', {}, body.join('\n'))));
      continue;
    }
    if (!line.trim()) {
      i += 1;
      continue;
    }
    const heading = line.match(/^\s*(#{1,6})\s+(.*)$/);
    if (heading) {
      out.append(h('p', {}, h('strong', {}, inline(heading[2]))));
      i += 1;
      continue;
    }
    const bullet = /^\s*[-*+•]\s+/;
    const numbered = /^\s*\d+[.)]\s+/;
    for (const [re, tag] of [[bullet, 'ul'], [numbered, 'ol']]) {
      if (!re.test(line)) continue;
      const list = h(tag);
      while (i < lines.length && re.test(lines[i])) {
        const item = [lines[i].replace(re, '')];
        i += 1;
        // Indented continuation lines belong to the item.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !bullet.test(lines[i]) && !numbered.test(lines[i])) {
          item.push(lines[i].trim());
          i += 1;
        }
        list.append(h('li', {}, withBreaks(item)));
      }
      out.append(list);
      break;
    }
    if (bullet.test(line) || numbered.test(line)) continue;
    const para = [];
    while (
      i < lines.length && lines[i].trim() && !bullet.test(lines[i]) && !numbered.test(lines[i]) &&
      !/^\s*(```|~~~)/.test(lines[i]) && !/^\s*#{1,6}\s/.test(lines[i])
    ) {
      para.push(lines[i]);
      i += 1;
    }
    out.append(h('p', {}, withBreaks(para)));
  }
  return out;
}

function withBreaks(lines) {
  return lines.flatMap((line, n) => (n ? [h('br'), ...inline(line)] : inline(line)));
}

const INLINE = /`([^`\n]+)`|\*\*([^*\n]+)\*\*|\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>()"'`，。）]+[^\s<>()"'`，。）.,;:!?])|(?<![\w*])\*([^*\n]+)\*(?![\w*])/g;

/** Inline Markdown of one line, as nodes. */
function inline(text) {
  const nodes = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) nodes.push(text.slice(last, m.index));
    if (m[1] !== undefined) nodes.push(h('code', {}, m[1]));
    else if (m[2] !== undefined) nodes.push(h('strong', {}, m[2]));
    else if (m[3] !== undefined) nodes.push(link(m[4], m[3]));
    else if (m[5] !== undefined) nodes.push(link(m[5], m[5]));
    else nodes.push(h('em', {}, m[6]));
    last = m.index + m[0].length;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

function link(href, label) {
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, label);
}
