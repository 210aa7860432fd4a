//! A Redis URL as logs and errors show it: its password replaced by `***`.

/// `url` with the password of its user information replaced by `***` (all of the user
/// information, when it has no `:`: Redis URLs may carry a bare password there).
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    // The last `@`: a password may hold `@` and `/` unencoded, a Redis URL's path (the
    // database's number) neither.
    let Some((user_info, host_and_path)) = rest.rsplit_once('@') else {
        return url.to_owned();
    };
    let user_info = match user_info.split_once(':') {
        Some((user, _)) => format!("{user}:***"),
        None => "***".to_owned(),
    };
    format!("{scheme}://{user_info}@{host_and_path}")
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn the_password_never_shows() {
        assert_eq!(
            redacted("redis://:s3cret@10.0.0.5:6379"),
            "redis://:***@10.0.0.5:6379"
        );
        assert_eq!(
            redacted("rediss://app:p@ss/w@cache.internal:6380/2"),
            "rediss://app:***@cache.internal:6380/2"
        );
        assert_eq!(
            redacted("redis://bare@cache:6379"),
            "redis://***@cache:6379"
        );
        assert_eq!(redacted("redis://cache:6379/0"), "redis://cache:6379/0");
        assert_eq!(redacted("not a url"), "not a url");
    }
}
