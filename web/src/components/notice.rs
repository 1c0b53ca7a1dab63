//! The page's notices (a link that could not be opened, a session set aside) with what
//! they offer, and the banner after a crash.

use crate::i18n::K;
use crate::startup::Banner;
use crate::state::{Notice, Offer, Progress};
use yew::prelude::*;

/// Properties of [`NoticeBar`].
#[derive(Properties, PartialEq)]
pub struct NoticeProps {
    /// The notice.
    pub notice: Notice,
    /// Dismisses it.
    pub on_dismiss: Callback<()>,
    /// "Return to your session".
    pub on_return: Callback<()>,
}

/// A notice, with its button or download link.
#[function_component(NoticeBar)]
pub fn notice_bar(props: &NoticeProps) -> Html {
    let w = super::lang_switch::use_words();
    let back = html! {
        <button class="secondary" data-testid="return-to-session"
            onclick={props.on_return.reform(|_| ())}>{ w.t(K::NoticeReturnToYourSession) }</button>
    };
    let download = |href: &std::rc::Rc<str>| {
        html! {
            <a class="button-like secondary" href={AttrValue::Rc(href.clone())}
                download="shardlab-session.json" data-testid="download-session">{ w.t(K::NoticeDownloadTheSession) }</a>
        }
    };
    let offer = match &props.notice.offer {
        Some(Offer::ReturnToSession) => back,
        Some(Offer::Download(href)) => download(href),
        Some(Offer::DownloadOrReturn(href)) => html! { <>{ download(href) }{ back }</> },
        None => Html::default(),
    };
    html! {
        <div class="notice" role="status" data-testid="notice">
            <span class="notice-text">{ props.notice.shown(w) }</span>
            <span class="notice-actions">
                { offer }
                <button class="link-button" aria-label={w.t(K::NoticeDismissNotice)}
                    onclick={props.on_dismiss.reform(|_| ())}>{ "×" }</button>
            </span>
        </div>
    }
}

/// Properties of [`ReplayBar`].
#[derive(Properties, PartialEq)]
pub struct ReplayProps {
    /// How far the replay has come.
    pub progress: Progress,
    /// How many commands typed meanwhile wait for its end.
    pub waiting: usize,
    /// Stops the replay, keeping the steps replayed so far.
    pub on_cancel: Callback<()>,
}

/// The progress of a replay under way, with its Cancel button.
#[function_component(ReplayBar)]
pub fn replay_bar(props: &ReplayProps) -> Html {
    let w = super::lang_switch::use_words();
    let p = &props.progress;
    // Until the engine has read the scenario, its length is unknown: no bar yet.
    if p.goal == 0 {
        return Html::default();
    }
    let waiting = match props.waiting {
        0 => String::new(),
        1 => w.t(K::Notice1TypedCommandRunsWhen).to_string(),
        n => w.tf(K::NoticeNTypedCommandsRunWhen, &[("n", &n)]),
    };
    let text = w.tf(
        K::NoticeWhatNOfN2Commands,
        &[
            ("what", &p.what),
            ("n", &(thousands(p.done))),
            ("n2", &(thousands(p.goal))),
            ("waiting", &waiting),
        ],
    );
    html! {
        <div class="notice replay-progress" role="status" data-testid="replay-progress">
            <span class="notice-text" data-testid="replay-text">{ text }</span>
            <progress max={p.goal.max(1).to_string()} value={p.done.to_string()} aria-label={w.t(K::NoticeReplayProgress)} />
            <span class="notice-actions">
                <button class="secondary" data-testid="replay-cancel"
                    onclick={props.on_cancel.reform(|_| ())}>{ w.t(K::ConsoleCancel) }</button>
            </span>
        </div>
    }
}

/// A count with commas between thousands ("20,000").
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Properties of [`CrashBanner`].
#[derive(Properties, PartialEq)]
pub struct BannerProps {
    /// What failed and how the page came back.
    pub banner: Banner,
    /// Dismisses it.
    pub on_dismiss: Callback<()>,
}

/// The banner after a crash: what failed, during which command, and how the page came back.
#[function_component(CrashBanner)]
pub fn crash_banner(props: &BannerProps) -> Html {
    let w = super::lang_switch::use_words();
    let b = &props.banner;
    let during = match (&b.doing, &b.command) {
        (Some(doing), Some(command)) => html! {
            <>{ w.tf(K::NoticeWhileDoing, &[("doing", &doing)]) }<code data-testid="crash-command">{ shorten(command) }</code>{ "." }</>
        },
        (Some(doing), None) => html! { { w.tf(K::NoticeWhileDoing2, &[("doing", &doing)]) } },
        (None, _) => html! { { "." } },
    };
    html! {
        <div class="crash-banner" role="alert" data-testid="crash-banner">
            <div class="crash-text">
                <p>
                    <strong>{ w.tf(K::NoticeShardlabStoppedWhat, &[("what", &b.what)]) }</strong>
                    { during }
                    { " " }{ b.outcome.clone() }
                </p>
                if let Some(detail) = &b.detail {
                    <p class="crash-detail">{ shorten(detail) }</p>
                }
            </div>
            <button class="link-button" aria-label={w.t(K::NoticeDismissTheMessage)}
                onclick={props.on_dismiss.reform(|_| ())}>{ "×" }</button>
        </div>
    }
}

/// A long command or message cut to a readable length.
fn shorten(text: &str) -> String {
    const MAX: usize = 240;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
