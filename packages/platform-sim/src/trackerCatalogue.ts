/** The issue tracker behind the demo integration: its projects, issue types, fields and labels. */

export type TrackerFieldType = 'string' | 'text' | 'option' | 'array' | 'user' | 'date' | 'number';

export interface TrackerOption {
  id: string;
  name: string;
}

export interface TrackerField {
  key: string;
  name: string;
  required: boolean;
  type: TrackerFieldType;
  allowedValues?: TrackerOption[];
}

export interface TrackerProject {
  id: string;
  key: string;
  name: string;
}

export const trackerProjects: readonly TrackerProject[] = [
  { id: '10001', key: 'OPS', name: 'Operations' },
  { id: '10002', key: 'REL', name: 'Reliability' },
];

export const trackerIssueTypes: readonly TrackerOption[] = [
  { id: '10004', name: 'Incident' },
  { id: '10005', name: 'Task' },
];

export const trackerLabels: readonly string[] = ['chaos', 'gameday', 'reliability', 'postmortem'];

const priorities: TrackerOption[] = [
  { id: '1', name: 'Highest' },
  { id: '2', name: 'High' },
  { id: '3', name: 'Medium' },
  { id: '4', name: 'Low' },
  { id: '5', name: 'Lowest' },
];

const environments: TrackerOption[] = [
  { id: '20001', name: 'Production' },
  { id: '20002', name: 'Staging' },
];

/** The fields of an issue type in a project; incidents need a priority and an environment. */
export function trackerFields(project: TrackerProject, issueType: TrackerOption): TrackerField[] {
  const incident = issueType.id === '10004';
  return [
    { key: 'summary', name: 'Summary', required: true, type: 'string' },
    { key: 'description', name: 'Description', required: false, type: 'text' },
    {
      key: 'project',
      name: 'Project',
      required: true,
      type: 'option',
      allowedValues: [{ id: project.id, name: project.name }],
    },
    { key: 'issuetype', name: 'Issue Type', required: true, type: 'option', allowedValues: [issueType] },
    { key: 'priority', name: 'Priority', required: incident, type: 'option', allowedValues: priorities },
    ...(incident
      ? [
          {
            key: 'customfield_10050',
            name: 'Environment',
            required: true,
            type: 'option' as const,
            allowedValues: environments,
          },
        ]
      : []),
    { key: 'labels', name: 'Labels', required: false, type: 'array' },
    { key: 'duedate', name: 'Due date', required: false, type: 'date' },
  ];
}
