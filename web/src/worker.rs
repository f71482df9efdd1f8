//! Module Web Workers with typed messages, for work that must not run on the page's thread.
//!
//! - [`ModuleWorker`] starts a module worker from a URL and exchanges serde-typed messages with it:
//!   [`ModuleWorker::request`] posts a request and waits for the final reply with the same id, handing the progress
//!   messages in between to a callback. Past the request's deadline, or when the worker dies, the worker is
//!   terminated and the request fails with a [`WorkerError`]; a terminated worker refuses further requests.
//! - [`Warm`] keeps one started worker ready and a spare starting in the background, so that replacing a worker
//!   (after a timeout, a crash, or because it grew too large) does not wait for a slow start-up.
//!
//! Messages cross as plain JavaScript objects (`serde-wasm-bindgen`, maps as objects, bytes as `Uint8Array`).
//!
//! Every started worker is also listed in the page's `window.__acrWorkers` set (made by `web/boot.js`), so that when
//! the core traps and is restarted, its workers are terminated with it instead of running on unowned.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;
use std::rc::Rc;

use futures::future::{Either, FutureExt, LocalBoxFuture, Shared, select};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::browser;

/// A message that belongs to a request: requests carry an id, and the worker's answers repeat it.
pub trait Message {
    /// The request's id.
    fn id(&self) -> u64;
}

/// A message from the worker: progress while the request runs, or its final answer.
pub trait Reply: Message + DeserializeOwned {
    /// Whether this answer ends the request.
    fn is_final(&self) -> bool;
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerError {
    /// The browser would not start the worker.
    Start(String),
    /// The worker stopped (an uncaught error, a failed module load) before answering.
    Crashed(String),
    /// The deadline passed; the worker was terminated.
    TimedOut,
    /// The worker was terminated earlier and takes no more requests.
    Terminated,
    /// Another request is in progress (a worker answers one request at a time).
    Busy,
    /// A message could not be sent or read.
    Protocol(String),
}

impl fmt::Display for WorkerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerError::Start(m) => write!(f, "the worker could not start: {m}"),
            WorkerError::Crashed(m) => write!(f, "the worker stopped: {m}"),
            WorkerError::TimedOut => f.write_str("the worker did not answer in time and was stopped"),
            WorkerError::Terminated => f.write_str("the worker was stopped earlier"),
            WorkerError::Busy => f.write_str("the worker is busy with another request"),
            WorkerError::Protocol(m) => write!(f, "unexpected message from the worker: {m}"),
        }
    }
}

impl std::error::Error for WorkerError {}

/// Messages received and not yet read, and the promise waiting for the next one.
#[derive(Default)]
struct Inbox {
    queue: VecDeque<Result<JsValue, WorkerError>>,
    wake: Option<js_sys::Function>,
}

impl Inbox {
    fn push(inbox: &RefCell<Inbox>, item: Result<JsValue, WorkerError>) {
        let wake = {
            let mut inbox = inbox.borrow_mut();
            inbox.queue.push_back(item);
            inbox.wake.take()
        };
        if let Some(wake) = wake {
            let _ = wake.call0(&JsValue::NULL);
        }
    }
}

/// A dedicated module worker that takes `Req`s and answers with `Rep`s.
pub struct ModuleWorker<Req, Rep> {
    worker: web_sys::Worker,
    inbox: Rc<RefCell<Inbox>>,
    next_id: Cell<u64>,
    alive: Cell<bool>,
    busy: Cell<bool>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
    _types: PhantomData<fn(Req) -> Rep>,
}

impl<Req: Serialize, Rep: Reply> ModuleWorker<Req, Rep> {
    /// Starts the module worker at `url` (relative to the page).
    pub fn start(url: &str) -> Result<Self, WorkerError> {
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(url, &options).map_err(|e| WorkerError::Start(js_text(&e)))?;
        let inbox = Rc::new(RefCell::new(Inbox::default()));
        let for_messages = inbox.clone();
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            Inbox::push(&for_messages, Ok(event.data()));
        });
        let for_errors = inbox.clone();
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            let message = event.message();
            let message = if message.is_empty() { "the worker's script failed to load or run".into() } else { message };
            Inbox::push(&for_errors, Err(WorkerError::Crashed(message)));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        registry_call("add", &worker);
        Ok(ModuleWorker {
            worker,
            inbox,
            next_id: Cell::new(1),
            alive: Cell::new(true),
            busy: Cell::new(false),
            _on_message: on_message,
            _on_error: on_error,
            _types: PhantomData,
        })
    }

    /// Sends the request `make(id)` and waits for its final reply, passing progress replies to `progress`.
    ///
    /// With a deadline (milliseconds from now), a worker that has not answered by then is terminated and the result
    /// is [`WorkerError::TimedOut`]. A worker that dies is terminated too ([`WorkerError::Crashed`]). One request at
    /// a time: another one sent meanwhile gets [`WorkerError::Busy`].
    pub async fn request(
        &self,
        make: impl FnOnce(u64) -> Req,
        deadline_ms: Option<f64>,
        progress: impl FnMut(Rep),
    ) -> Result<Rep, WorkerError> {
        if !self.alive.get() {
            return Err(WorkerError::Terminated);
        }
        if self.busy.replace(true) {
            return Err(WorkerError::Busy);
        }
        let _free_when_done = Release(&self.busy);
        self.exchange(make, deadline_ms, progress).await
    }

    async fn exchange(
        &self,
        make: impl FnOnce(u64) -> Req,
        deadline_ms: Option<f64>,
        mut progress: impl FnMut(Rep),
    ) -> Result<Rep, WorkerError> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
        let message = make(id).serialize(&serializer).map_err(|e| WorkerError::Protocol(e.to_string()))?;
        self.worker.post_message(&message).map_err(|e| WorkerError::Protocol(js_text(&e)))?;
        let end = deadline_ms.map(|ms| browser::now() + ms);
        loop {
            let next = match end {
                None => self.next_message().await,
                Some(end) => {
                    let left = (end - browser::now()).max(0.0);
                    let timer = Box::pin(browser::sleep_ms(left.ceil() as u32));
                    match select(Box::pin(self.next_message()), timer).await {
                        Either::Left((next, _)) => next,
                        Either::Right(_) => {
                            self.terminate();
                            return Err(WorkerError::TimedOut);
                        }
                    }
                }
            };
            let value = match next {
                Ok(value) => value,
                Err(e) => {
                    self.terminate();
                    return Err(e);
                }
            };
            let reply: Rep = serde_wasm_bindgen::from_value(value).map_err(|e| WorkerError::Protocol(e.to_string()))?;
            if reply.id() != id {
                continue; // an answer to an abandoned request
            }
            if reply.is_final() {
                return Ok(reply);
            }
            progress(reply);
        }
    }

    /// The next message, waiting for it if none has arrived.
    async fn next_message(&self) -> Result<JsValue, WorkerError> {
        loop {
            if let Some(item) = self.inbox.borrow_mut().queue.pop_front() {
                return item;
            }
            let inbox = self.inbox.clone();
            let arrived = js_sys::Promise::new(&mut |resolve, _| inbox.borrow_mut().wake = Some(resolve));
            let _ = JsFuture::from(arrived).await;
        }
    }

    /// Stops the worker at once, whatever it is doing.
    pub fn terminate(&self) {
        if self.alive.replace(false) {
            self.worker.terminate();
            self.worker.set_onmessage(None);
            self.worker.set_onerror(None);
            registry_call("delete", &self.worker);
        }
    }
}

impl<Req, Rep> Drop for ModuleWorker<Req, Rep> {
    fn drop(&mut self) {
        if self.alive.replace(false) {
            self.worker.terminate();
            registry_call("delete", &self.worker);
        }
    }
}

/// Adds a worker to, or deletes it from, the page's `window.__acrWorkers` set, when the page has one.
fn registry_call(method: &str, worker: &web_sys::Worker) {
    let Some(window) = web_sys::window() else { return };
    let Ok(set) = js_sys::Reflect::get(&window, &"__acrWorkers".into()) else { return };
    if let Ok(f) = js_sys::Reflect::get(&set, &method.into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
        let _ = f.call1(&set, worker);
    }
}

/// Clears a flag when dropped (a request abandoned midway frees its worker too).
struct Release<'a>(&'a Cell<bool>);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

/// A started worker (with whatever its set-up produced), as [`Warm`] hands it out.
type Starting<T> = Shared<LocalBoxFuture<'static, Result<Rc<T>, WorkerError>>>;

/// One started `T` kept ready, plus a spare started in the background once the first is ready.
pub struct Warm<T> {
    start: Box<dyn Fn() -> LocalBoxFuture<'static, Result<Rc<T>, WorkerError>>>,
    current: RefCell<Option<Starting<T>>>,
    spare: RefCell<Option<Starting<T>>>,
}

impl<T: 'static> Warm<T> {
    /// Nothing started yet; `start` starts one `T` (a worker and its set-up).
    pub fn new(start: impl Fn() -> LocalBoxFuture<'static, Result<Rc<T>, WorkerError>> + 'static) -> Self {
        Warm { start: Box::new(start), current: RefCell::new(None), spare: RefCell::new(None) }
    }

    /// The ready `T`: the current one, else the spare, else a new one (waiting for it to start).
    pub async fn get(&self) -> Result<Rc<T>, WorkerError> {
        let starting = {
            let mut current = self.current.borrow_mut();
            current.get_or_insert_with(|| self.spare.borrow_mut().take().unwrap_or_else(|| self.launch())).clone()
        };
        let result = starting.clone().await;
        match &result {
            Ok(_) => self.ensure_spare(),
            Err(_) => {
                let mut current = self.current.borrow_mut();
                if current.as_ref().is_some_and(|c| c.ptr_eq(&starting)) {
                    *current = None;
                }
            }
        }
        result
    }

    /// The current `T` if it has started, without waiting.
    pub fn ready(&self) -> Option<Rc<T>> {
        self.current.borrow().as_ref().and_then(|c| c.peek().cloned()).and_then(Result::ok)
    }

    /// Whether the spare has started.
    pub fn spare_ready(&self) -> bool {
        self.spare.borrow().as_ref().is_some_and(|s| matches!(s.peek(), Some(Ok(_))))
    }

    /// Stops using `used` (timed out, crashed, too large): the next [`Warm::get`] takes the spare.
    pub fn discard(&self, used: &Rc<T>) {
        let mut current = self.current.borrow_mut();
        let is_used =
            current.as_ref().and_then(|c| c.peek()).is_some_and(|r| r.as_ref().is_ok_and(|t| Rc::ptr_eq(t, used)));
        if is_used {
            *current = None;
        }
    }

    /// Forgets the current one and the spare (their set-up is out of date); the next [`Warm::get`] starts afresh.
    pub fn reset(&self) {
        self.current.borrow_mut().take();
        self.spare.borrow_mut().take();
    }

    fn launch(&self) -> Starting<T> {
        (self.start)().shared()
    }

    /// Starts a spare if there is none, driving its start-up in the background.
    fn ensure_spare(&self) {
        let mut spare = self.spare.borrow_mut();
        if spare.is_none() {
            let starting = self.launch();
            let driven = starting.clone();
            leptos::task::spawn_local(async move {
                let _ = driven.await;
            });
            *spare = Some(starting);
        }
    }
}

/// A JavaScript error's message.
fn js_text(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}
