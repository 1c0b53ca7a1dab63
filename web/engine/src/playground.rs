//! The playground's session: what the user does to it and the page view it answers with.
