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
