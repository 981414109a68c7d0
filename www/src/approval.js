// The approval dialog: the agent's `onApproval` callback. One question at a time; the answer is
// "yes", "no" or "always" (run it and stop asking about this tool until the page reloads).
import { byId } from './dom.js';

const WHY = {
  network: 'It will send a request from this page to another site.',
  write: 'It may change data.',
  execute: 'It may run code or commands.',
  read: 'A rule asks before this tool runs.',
};

/** Wires the dialog; returns `ask(request) => Promise<'yes' | 'no' | 'always'>`. */
export function createApproval() {
  const dialog = byId('approval');
  let queue = Promise.resolve();

  const askOne = (request) =>
    new Promise((resolve) => {
      byId('approval-tool').textContent = request.name;
      const risk = byId('approval-risk');
      risk.textContent = request.risk;
      risk.dataset.risk = request.risk;
      byId('approval-explain').textContent = WHY[request.risk] ?? '';
      byId('approval-args').textContent = JSON.stringify(request.args ?? {}, null, 2);
      dialog.returnValue = '';
      dialog.addEventListener(
        'close',
        // Escape (or anything but a button) closes with no value: that is a "no".
        () => resolve(['yes', 'always'].includes(dialog.returnValue) ? dialog.returnValue : 'no'),
        { once: true },
      );
      dialog.showModal();
      byId('approval-yes').focus();
    });

  return (request) => {
    const answer = queue.then(() => askOne(request));
    queue = answer.catch(() => {});
    return answer;
  };
}
