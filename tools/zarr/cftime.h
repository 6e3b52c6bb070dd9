/* cftime.h -- CF time coordinates: values counting "<unit> since <date>" (the `units`
 * attribute) in one of the CF calendars (the `calendar` attribute), turned into dates.
 *
 * Calendars (CF 1.11, section 4.4.1):
 *   standard, gregorian    the mixed Julian/Gregorian calendar: the Julian calendar up to
 *                          1582-10-04, the Gregorian one from the next day, 1582-10-15 (the
 *                          dates in between do not exist); the default without `calendar`
 *   proleptic_gregorian    the Gregorian calendar for all dates
 *   julian                 the Julian calendar for all dates (a leap year every 4 years)
 *   noleap, 365_day        no leap years
 *   all_leap, 366_day      every year a leap year
 *   360_day                twelve months of 30 days
 * Years are numbered astronomically in every calendar: year 0 is 1 BC, -1 is 2 BC. */
#ifndef ZARR_TOOL_CFTIME_H
#define ZARR_TOOL_CFTIME_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CFCAL_STANDARD,
    CFCAL_PROLEPTIC_GREGORIAN,
    CFCAL_JULIAN,
    CFCAL_NOLEAP,
    CFCAL_ALL_LEAP,
    CFCAL_360_DAY
} cf_calendar;

/* A time axis: what one unit is, and the date it counts from. */
typedef struct {
    cf_calendar calendar;
    int64_t unit_us;   /* microseconds in one unit */
    int64_t epoch_day; /* the reference date as a day number of the calendar */
    int64_t epoch_us;  /* the reference time of day (UTC), microseconds after midnight */
} cf_time;

/* What cftime_parse found. */
enum {
    CFTIME_OK = 0,       /* *out describes the time axis */
    CFTIME_NOT_TIME = 1, /* units is not "<word> since <...>": not a time axis */
    CFTIME_UNSUPPORTED = 2 /* a time axis this code cannot decode: *why says why */
};

/* Read a time axis from `units` ("days since 2000-01-01", "hours since 1900-1-1 00:00:0.0",
 * "seconds since 1970-01-01T00:00:00Z") and `calendar` (NULL: standard; names are matched
 * without regard to case). Units: weeks, days (day, d), hours (hour, hr, h), minutes
 * (minute, min), seconds (second, sec, s), milliseconds (millisecond, msec, ms),
 * microseconds (microsecond, usec, us). The date is Y-M-D with an optional time
 * H:M[:S[.fraction]] after a space or 'T', and an optional time zone: Z, UTC, or an offset
 * such as +01:00, -6 or +0530. Months and years are refused (CF defines them as fractions
 * of a tropical year, which no calendar's months are), as are unknown calendars and dates
 * that do not exist in the calendar. `why` (why_len bytes) receives the reason of
 * CFTIME_UNSUPPORTED. */
int cftime_parse(const char *units, const char *calendar, cf_time *out, char *why, size_t why_len);

/* The date `value` units after the reference date, in ISO 8601: YYYY-MM-DDTHH:MM:SS, then
 * .fff when the value falls on a millisecond but not a second, .ffffff when it falls
 * between milliseconds (rounded to the microsecond). Years outside 0..9999 carry a sign
 * (-0001, +10000). Returns buf, or NULL when the value is not finite or the date is out of
 * range (beyond about 290000 years from the reference date). buf holds >= 40 bytes. */
const char *cftime_format(const cf_time *t, double value, char *buf, size_t len);

#endif
