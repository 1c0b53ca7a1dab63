//! The presenter view: the page opened with `?presenter=1` in a second window (the scenes
//! panel's "Presenter view" button). It shows the scene on screen's note, the next
//! scene's title and the position, kept in step with the page over a `BroadcastChannel`
//! ([`crate::presenting`]); its buttons and keys (→/PageDown, ←/PageUp) move both.
//! It runs no engine of its own.

use crate::i18n::{Words, K};
use crate::presenting::Presenting;
use crate::scenes::Cue;
use std::rc::Rc;
use yew::prelude::*;

/// What the page last said of its demo: the scene on screen and every title and note.
type Shown = (Option<u32>, Vec<(String, String)>);

/// The presenter view's root.
#[function_component(Presenter)]
pub fn presenter() -> Html {
    let w = super::lang_switch::use_words();
    let shown = use_state(|| None::<Shown>);
    let channel = use_mut_ref(|| None::<Rc<Presenting>>);
    {
        let (set, channel) = (shown.setter(), channel.clone());
        use_effect_with((), move |_| {
            let opened = Presenting::open(move |cue| {
                if let Cue::Show { at, scenes } = cue {
                    set.set(Some((at, scenes)));
                }
            })
            .map(Rc::new);
            if let Some(c) = &opened {
                c.post(&Cue::Hello);
            }
            *channel.borrow_mut() = opened;
            move || drop(channel.borrow_mut().take())
        });
    }
    let send = {
        let channel = channel.clone();
        Callback::from(move |to: u32| {
            if let Some(c) = channel.borrow().as_ref() {
                c.post(&Cue::Go { to });
            }
        })
    };
    let (at, scenes) = (*shown).clone().unwrap_or_default();
    let count = scenes.len() as u32;
    use_presenter_keys(at, count, send.clone());
    html! {
        <main class="presenter" data-testid="presenter">
            <h1 class="presenter-head">{ w.t(K::PresenterShardlabPresenterView) }</h1>
            { presenter_body(w, shown.is_some(), at, &scenes, &send) }
        </main>
    }
}

/// The note, the next title and the buttons, or why there is nothing to show.
fn presenter_body(
    w: Words,
    heard: bool,
    at: Option<u32>,
    scenes: &[(String, String)],
    send: &Callback<u32>,
) -> Html {
    if !heard {
        return html! { <p class="muted" data-testid="presenter-waiting">{ w.t(K::PresenterWaitingForTheShardlabPage) }</p> };
    }
    let count = scenes.len() as u32;
    let Some(i) = at else {
        return html! {
            <>
                <p data-testid="presenter-idle">{ w.tf(K::PresenterTheDemoHasCountScenes, &[("count", &count)]) }</p>
                <button data-testid="presenter-start" disabled={count == 0}
                    onclick={send.reform(|_: MouseEvent| 0)}>{ w.t(K::PresenterStartDemo) }</button>
            </>
        };
    };
    let (title, note) = scenes.get(i as usize).cloned().unwrap_or_default();
    let next = scenes.get(i as usize + 1).map(|(t, _)| t.clone());
    html! {
        <>
            <p class="presenter-position" data-testid="presenter-position">{ w.tf(K::PresenterSceneNOfCount, &[("n", &(i + 1)), ("count", &count)]) }</p>
            <h2 class="presenter-title" data-testid="presenter-title">{ title }</h2>
            <p class="presenter-note" data-testid="presenter-note">{ note }</p>
            <p class="presenter-next" data-testid="presenter-next">
                { match next { Some(t) => w.tf(K::PresenterNextT, &[("t", &t)]), None => w.t(K::PresenterLastScene).to_string() } }
            </p>
            <div class="buttons">
                <button class="secondary" data-testid="presenter-prev" disabled={i == 0}
                    onclick={send.reform(move |_: MouseEvent| i.saturating_sub(1))}>{ w.t(K::PresenterPrevious) }</button>
                <button data-testid="presenter-forward" disabled={i + 1 >= count}
                    onclick={send.reform(move |_: MouseEvent| i + 1)}>{ w.t(K::PresenterNext) }</button>
            </div>
        </>
    }
}

/// → and PageDown ask the page for the next scene, ← and PageUp for the previous one.
#[hook]
fn use_presenter_keys(at: Option<u32>, count: u32, send: Callback<u32>) {
    use_effect_with((at, count), move |(at, count)| {
        let (at, count) = (*at, *count);
        let listener = crate::keys::listen(move |key| {
            let to = match (key, at) {
                ("ArrowRight" | "PageDown", Some(i)) => i + 1,
                ("ArrowLeft" | "PageUp", Some(i)) => i.wrapping_sub(1),
                ("ArrowRight" | "PageDown", None) => 0,
                _ => return false,
            };
            if to < count {
                send.emit(to);
            }
            true
        });
        move || drop(listener)
    });
}
