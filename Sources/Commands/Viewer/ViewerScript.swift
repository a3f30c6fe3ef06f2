/// The web viewer's one script, allowed by its hash (`ViewerPolicy`): the pages work without it;
/// it adds live updates (server-sent events), loading more of a long session as it is scrolled
/// (with what is far off dropped, so that a page holds a few thousand elements at most), and keys
/// (`/` to search, `j`/`k` to move, `Enter` to open). It marks the document (`data-viewer="ready"`)
/// when it has run, which the tests read.
///
/// It inserts only what the server rendered (fragments parsed by `DOMParser`, whose scripts never
/// run), never text of its own making.
enum ViewerScript {
    static let source = #"""

        "use strict";
        const root = document.documentElement, body = document.body, main = document.querySelector("main");
        const maxElements = 4000;
        const parse = async (href) => {
          const answer = await fetch(href, { headers: { "Accept": "text/html" }, credentials: "same-origin" });
          if (!answer.ok) throw new Error(String(answer.status));
          return new DOMParser().parseFromString(await answer.text(), "text/html");
        };
        const entries = () => [...main.querySelectorAll("section.entry")];
        const ordinal = (section) => Number(section.id.slice(2));
        const keepOpen = (from, to) => {
          const open = [...from.querySelectorAll("details")].map((d) => d.open);
          [...to.querySelectorAll("details")].forEach((d, i) => { d.open = Boolean(open[i]); });
        };
        const link = (kind) => main.querySelector("a.more." + kind);
        const setLink = (kind, start) => {
          let a = link(kind);
          if (start === null) { a?.parentElement.remove(); return; }
          if (!a) {
            const p = document.createElement("p");
            p.className = "more";
            a = document.createElement("a");
            a.className = "more " + kind;
            a.textContent = kind === "earlier" ? "Earlier in this session" : "Later in this session";
            p.append(a);
            if (kind === "earlier") main.prepend(p); else main.append(p);
            observer?.observe(a);
          }
          const query = (kind === "earlier" ? "?before=" : "?from=") + start;
          a.href = body.dataset.base + query;
          a.dataset.fragment = body.dataset.base + "/entries" + query;
        };
        const startOf = (fragment, kind) => {
          const a = fragment.querySelector("a.more." + kind);
          return a ? new URL(a.href, location.href).searchParams.get(kind === "earlier" ? "before" : "from") : null;
        };
        const trim = (fromTop) => {
          let list = entries();
          let removed = null;
          while (document.getElementsByTagName("*").length > maxElements && list.length > 1) {
            removed = fromTop ? list.shift() : list.pop();
            removed.remove();
          }
          if (removed && fromTop) setLink("earlier", ordinal(list[0]));
          if (removed && !fromTop) setLink("later", ordinal(removed));
        };
        let busy = false;
        const more = async (a) => {
          if (busy || !a.isConnected) return;
          busy = true;
          let loaded = false;
          try {
            const later = a.classList.contains("later");
            const fragment = await parse(a.dataset.fragment);
            const sections = [...fragment.querySelectorAll("section.entry")].filter((s) => !document.getElementById(s.id));
            // What the reader sees stays in place: the entry next to the new ones (which trimming
            // keeps) is where it was, whether or not the browser anchors the scroll itself.
            const list = entries();
            const kept = later ? list[list.length - 1] : list[0];
            const top = kept?.getBoundingClientRect().top;
            if (later) a.parentElement.before(...sections); else a.parentElement.after(...sections);
            setLink(later ? "later" : "earlier", startOf(fragment, later ? "later" : "earlier"));
            trim(later);
            if (kept?.isConnected) scrollBy(0, kept.getBoundingClientRect().top - top);
            loaded = true;
          } finally { busy = false; }
          // The link just followed is observed anew, for the observer to say at its next look
          // whether it is in reach now: it reports changes only, and between two of its looks this
          // load may have moved the link out of reach and a scroll brought it back, or its
          // intersection came while the load ran. Only that link: the other side's loads when it
          // is made in reach or scrolled to, not again after each load. A load that failed waits
          // for the next scroll.
          if (loaded && observer && a.isConnected) {
            observer.unobserve(a);
            observer.observe(a);
          }
        };
        const observer = main && "IntersectionObserver" in window
          ? new IntersectionObserver((seen) => { for (const e of seen) if (e.isIntersecting) more(e.target); }, { rootMargin: "600px" })
          : null;
        if (observer) for (const a of main.querySelectorAll("a.more[data-fragment]")) observer.observe(a);
        const refreshTail = async () => {
          if (link("later")) return;
          const list = entries();
          const last = list[list.length - 1];
          const fragment = await parse(body.dataset.base + "/entries?from=" + (last ? ordinal(last) : 0));
          for (const section of fragment.querySelectorAll("section.entry")) {
            const old = document.getElementById(section.id);
            if (old) { keepOpen(old, section); old.replaceWith(section); } else main.append(section);
          }
          const later = startOf(fragment, "later");
          if (later !== null) setLink("later", later);
          trim(true);
        };
        const refreshRows = async () => {
          const rows = document.querySelector("tbody[data-live-rows]");
          if (!rows) return;
          const fresh = (await parse(location.pathname + location.search)).querySelector("tbody[data-live-rows]");
          if (fresh) rows.replaceWith(fresh);
        };
        if (body.dataset.live && "EventSource" in window) {
          let running = false, again = false;
          const refresh = async () => {
            if (running) { again = true; return; }
            running = true;
            do {
              again = false;
              try { await (body.dataset.base ? refreshTail() : refreshRows()); } catch (error) { /* the next change tries again */ }
            } while (again);
            running = false;
          };
          new EventSource(body.dataset.live).addEventListener("change", refresh);
        }
        let current = -1;
        const items = () => [...document.querySelectorAll("section.entry, tr[data-href], li.hit")];
        const move = (step) => {
          const list = items();
          if (!list.length) return;
          list[current]?.classList.remove("current");
          current = Math.max(0, Math.min(list.length - 1, current + step));
          list[current].classList.add("current");
          list[current].scrollIntoView({ block: "nearest" });
        };
        document.addEventListener("keydown", (event) => {
          if (event.target.closest("input, textarea, select") || event.ctrlKey || event.metaKey || event.altKey) return;
          if (event.key === "/") { const box = document.querySelector("input[name=q]"); if (box) { event.preventDefault(); box.focus(); box.select(); } }
          else if (event.key === "j") move(1);
          else if (event.key === "k") move(-1);
          else if (event.key === "Enter") {
            const item = items()[current];
            if (!item) return;
            const link = item.dataset.href ? item.querySelector("a") : item.matches("li.hit") ? item.querySelector("a") : null;
            if (link) link.click(); else for (const details of item.querySelectorAll(":scope > details, :scope > div > details")) details.open = !details.open;
          }
        });
        root.dataset.viewer = "ready";

        """#
}
