// The player panel of the start screen: make a player (its key shown once, to copy), sign in
// with a key from another device, a sign-in link and its QR code for a phone, signing out.
//
// The key is written into the page only in the one-time display after the player is made, and
// removed from it when the person says it is kept (or leaves the page). The sign-in link goes to
// the clipboard, never into the page; its QR code is an image of the link, drawn by the service
// (GET /v1/players/me/sign-in-qr, the key sent as Authorization).

import { isUnknownKey } from "./player.js";

const $ = (id) => document.getElementById(id);

/** Wires the panel to `player` (player.js); `onProblem(error)` shows an error. */
export function setUpSignIn({ player, onProblem }) {
  const make = $("make-player");
  const useKey = $("use-key");
  const status = $("player-status");

  const showPlayer = () => {
    const profile = player.profile;
    $("signed-out").hidden = player.signedIn;
    $("signed-in").hidden = !player.signedIn;
    $("player-title").textContent = player.signedIn ? "Your player" : "Play as a player";
    if (profile) {
      $("player-name").textContent = profile.name;
      $("player-id").textContent = profile.player_id;
    } else {
      forgetKeyShown();
      closeQr();
    }
  };
  player.addEventListener("change", showPlayer);
  showPlayer();

  make.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = make.elements.name;
    input.value = input.value.trim();
    if (!input.reportValidity()) return;
    await busy(make, async () => {
      const made = await player.create(input.value);
      input.value = "";
      showKeyOnce(made.key);
      status.textContent = `You play as ${made.name}. Copy your key now.`;
    }, onProblem);
  });

  useKey.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = useKey.elements.key;
    const problem = $("use-key-problem");
    problem.hidden = true;
    const key = input.value.trim();
    if (!key) {
      input.reportValidity();
      return;
    }
    await busy(useKey, async () => {
      try {
        await player.signIn(key);
      } catch (error) {
        if (!isUnknownKey(error)) throw error;
        problem.textContent =
          "No player has this key. Check that it is complete (it starts with ttp_); a key that " +
          "was replaced by a new one no longer works.";
        problem.hidden = false;
        input.setAttribute("aria-invalid", "true");
        input.focus();
        return;
      }
      input.value = ""; // the key is kept in local storage, not in the form
      input.removeAttribute("aria-invalid");
      status.textContent = `Signed in as ${player.profile.name}.`;
      $("player-title").focus();
    }, onProblem);
  });

  $("copy-key").addEventListener("click", async () => {
    const value = $("key-once-value");
    if (await copy(value.textContent)) $("copy-key").textContent = "Copied";
    else getSelection().selectAllChildren(value); // no clipboard: selected, to copy by hand
  });
  $("key-kept").addEventListener("click", () => {
    forgetKeyShown();
    status.textContent = "";
    $("player-title").focus();
  });
  $("copy-player-id").addEventListener("click", async () => {
    if (await copy(player.profile?.player_id ?? "")) status.textContent = "Player id copied.";
  });
  $("copy-sign-in-link").addEventListener("click", async () => {
    status.textContent = (await copy(player.signInLink()))
      ? "Sign-in link copied: open it on your other device."
      : "This browser does not let the page copy: scan the code instead.";
  });
  $("other-device").addEventListener("toggle", () => {
    if ($("other-device").open) showQr(player, onProblem);
    else closeQr();
  });
  $("sign-out").addEventListener("click", () => {
    const question =
      "Sign out? This browser forgets your key: to play as this player again you need the key " +
      "(or a sign-in link) you kept.";
    if (!window.confirm(question)) return;
    player.signOut();
    status.textContent = "Signed out. Your games stay with your player.";
    make.elements.name.focus();
  });
}

/** The key, shown once, with its warning; the focus on the button that copies it. */
function showKeyOnce(key) {
  $("key-once-value").textContent = key;
  $("key-once").hidden = false;
  $("copy-key").textContent = "Copy key";
  $("copy-key").focus();
}

function forgetKeyShown() {
  $("key-once-value").textContent = "";
  $("key-once").hidden = true;
}

/** The QR code of the sign-in link, as an image (a data: URL of the service's SVG). */
async function showQr(player, onProblem) {
  const image = $("sign-in-qr");
  try {
    const svg = await player.signInQr();
    if (!$("other-device").open) return;
    image.src = `data:image/svg+xml;base64,${btoa(svg)}`;
    image.hidden = false;
  } catch (error) {
    onProblem(error);
  }
}

function closeQr() {
  const image = $("sign-in-qr");
  image.removeAttribute("src");
  image.hidden = true;
  $("other-device").open = false;
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

async function busy(form, work, onProblem) {
  const button = form.querySelector("[type=submit]");
  button.disabled = true;
  try {
    await work();
  } catch (error) {
    onProblem(error);
  } finally {
    button.disabled = false;
  }
}
