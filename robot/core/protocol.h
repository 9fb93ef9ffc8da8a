/*
 * protocol.h: the box protocol's version, which robot-box and robotd
 * share.  The box protocol: the box calls (register, lease, heartbeat, result,
 * enroll) and their documents, as robot-box speaks them.  robot-box sends
 * its version with each call (ROBOT_BOX_PROTOCOL_HEADER); robotd serves
 * ROBOT_BOX_PROTOCOL_MIN to ROBOT_BOX_PROTOCOL, takes a box that sends
 * none for version 1 (the boxes before versions were sent), and answers
 * any other with 426 and what to upgrade.  A change a box of the
 * previous version cannot follow raises ROBOT_BOX_PROTOCOL (robotd then
 * serves both while it can); dropping an old one raises the minimum.
 */
#ifndef ROBOT_PROTOCOL_H
#define ROBOT_PROTOCOL_H

#define ROBOT_BOX_PROTOCOL        1
#define ROBOT_BOX_PROTOCOL_MIN    1
#define ROBOT_BOX_PROTOCOL_HEADER "Robot-Box-Protocol"

/* A request's body that keeps coming at this average rate (bytes a
 * second) is let finish past robotd's request_timeout; a box gives its
 * upload as long (a slow link's upload was cut, then every retry). */
#define ROBOT_MIN_BODY_RATE 4096

/* The largest mail robot mail-in hands robotd (POST /api/mail). */
#define ROBOT_MAIL_MAX (4u << 20)

#endif
