// "Watch a run live", under the runs of results.csv: for each chosen run,
// the line that serves it in the viewer (watch_command.js) and a button
// that copies it. The folder is typed once (the page never sees paths:
// the files were dropped or chosen).
(function (ns) {
  'use strict';

  async function copy(line, code, button) {
    try {
      await navigator.clipboard.writeText(line);
      button.textContent = 'copied';
    } catch {
      // No clipboard (an older browser, or a page the browser does not
      // trust with it): the line selected, for Ctrl-C.
      getSelection().selectAllChildren(code);
      button.textContent = 'selected: Ctrl-C';
    }
  }

  // "open in a room": the run in a new room of the server that served this
  // page (watch_room.js), shown in a new tab at its first tick with the
  // whole run on the timeline, and a link to it here.
  function roomButton(runId, item, dirInput) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'open in a room';
    button.title = 'watch this run in a new tab, with its timeline: play, pause, drag to any tick';
    button.setAttribute('aria-label', `open run ${runId} in a new room of this server`);
    button.addEventListener('click', async () => {
      const experiment = ns.experimentName(dirInput.value);
      const note = item.querySelector('.room-note') ?? item.appendChild(document.createElement('span'));
      note.className = 'room-note';
      if (!experiment) {
        note.textContent = ' type the output folder first (its name under the server\'s --experiments)';
        return;
      }
      button.disabled = true;
      note.textContent = ' opening…';
      // The tab is opened now, while the click is the person's: one opened
      // once the server has answered would be a pop-up, and blocked. It
      // goes to the room when the room is made (no tab: the link does).
      const tab = window.open('', '_blank');
      try {
        const room = await ns.openRunRoom(experiment, runId);
        ns.keepRoomToken(room.code, room.token);
        const href = ns.runRoomHref(room.path);
        const link = document.createElement('a');
        link.href = href;
        link.target = '_blank';
        link.textContent = `room ${room.code.slice(0, 4)}-${room.code.slice(4)}`;
        link.className = 'room-link';
        note.replaceChildren(' ', link);
        if (tab) {
          tab.opener = null;
          tab.location.href = href;
        }
      } catch (err) {
        tab?.close();
        note.textContent = ` ${err.message}`;
      } finally {
        button.disabled = false;
      }
    });
    return button;
  }
  ns.watchView = function watchView(box) {
    const dirInput = box.querySelector('input.out-dir');
    const list = box.querySelector('ul.watch-lines');
    let runs = [];

    function render() {
      list.replaceChildren(...runs.map((run) => {
        const line = ns.watchCommand(dirInput.value, run.runId);
        const item = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = line;
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'copy';
        button.setAttribute('aria-label', `copy the command that serves run ${run.runId} live`);
        button.addEventListener('click', () => copy(line, code, button));
        item.append(code, ' ', button);
        if (ns.servedByServer && ns.servedByServer()) item.append(' ', roomButton(run.runId, item, dirInput));
        return item;
      }));
    }

    dirInput.addEventListener('input', render);
    return {
      show(chosen) {
        runs = chosen;
        render();
      },
    };
  };
})(globalThis.SwarmcastExperiment ??= {});
